/* main.c — the `irl` command: the one place that wires the front end, the code generator, the bytecode file
 * and the VM together. Exit codes: 0 success, 1 run-time error, 64 usage, 65 compile error or invalid
 * bytecode, 66 input missing or unreadable, 128 + the signal for a dry-run interrupted (exec_offline.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "bytecode.h"
#include "chunk.h"
#include "codegen.h"
#include "diag.h"
#include "disasm.h"
#include "exec/exec_offline.h"
#include "online/drivers/driver.h"
#include "online/exec_online.h"
#include "frontend.h"
#include "exec/run_options.h"
#include "model_cli.h"
#include "regmap_read.h"
#include "output/trace_cli.h"
#include "vm/vm.h"

#include "version.h"

enum { EX_OK = 0, EX_RUNTIME = 1, EX_USAGE_ = 64, EX_COMPILE = 65, EX_NOINPUT_ = 66 };

static const char usage_text[] =
    "usage: irl check FILE.irl\n"
    "       irl compile FILE.irl [-o FILE.irlc]\n"
    "       irl disasm FILE(.irl|.irlc)\n"
    "       irl run [--trace-exec] [--out DIR | --out-temp] [--cycle T] [--device D=FILE] [--start D=q1,...]\n"
    "               [--input NAME=V@T | FILE.csv] [--no-plots] [--trace h5|csv|none] [--digits N]\n"
    "               [--[no-]progress] [--time-scale K] [--threads 1|2] [--max-time T] [--plot-timeout T]\n"
    "               [--display deg|si]\n"
    "               [--closed-loop [--controller ct|pid] [--bandwidth W] [--kp L] [--kd L] [--ki L]\n"
    "                [--actual-start D=q1,...[;qd1,...]] [--controller-rate cycle|continuous]]\n"
    "               [--online --driver sim|stream|modbus|hal[:key=value,...] [--following-error E[,...]]\n"
    "                [--watchdog T] [--queue N] [--rt-priority P] [--max-missed N] [--force]\n"
    "                [--approach]]\n"
    "               FILE(.irl|.irlc)   (options: docs/RUNNING.md)\n"
    "       irl model MACHINE(.irm|.urdf) OP [--q ...] [--plugin lib.so] ...  (docs/MODELS.md)\n"
    "       irl trace FILE.h5 --csv [--channels a,b,...] [--from T] [--to T]\n"
    "       irl --version | help\n";

static int usage(void)
{
    fputs(usage_text, stderr);
    return EX_USAGE_;
}

static int help(void)
{
    fputs("irl — compiler and virtual machine for the irl robot language\n\n", stdout);
    fputs(usage_text, stdout);
    fputs("\n  check     parse and type-check a program; report every error\n"
          "  compile   write verified bytecode (default output: FILE.irlc)\n"
          "  disasm    print the bytecode of a program or a .irlc file\n"
          "  run       run a program (source or bytecode); --trace-exec prints each instruction on stderr\n"
          "\nexit status: 0 success, 1 run-time error or a check failed, 3 online: the drive did not confirm the\n"
          "disable (an axis may still be enabled), 64 usage error, 65 compile error or invalid bytecode, 66 input file\n"
          "missing or unreadable, 130 / 143 a dry-run interrupted by SIGINT / SIGTERM\n",
          stdout);
    return EX_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Compiles a .irl file to a chunk (initialised here). Returns an exit code; EX_OK leaves *c to be freed. */
static int compile_source(const char *path, Chunk *c, int check_only)
{
    Diag diag;
    Frontend fe;
    Node *program = NULL;
    diag_init(&diag, stderr);
    frontend_init(&fe, &diag);
    int rc = frontend_compile_file(&fe, path, &program);
    int status = EX_OK;
    if (rc == FE_EIO) {
        status = EX_NOINPUT_;
    } else if (rc != FE_OK || diag.errors) {
        status = EX_COMPILE;
    } else if (!check_only) {
        chunk_init(c);
        if (codegen_program(program, c, &diag) != 0) {
            chunk_free(c);
            status = EX_COMPILE;
        }
    }
    frontend_free(&fe);
    diag_free(&diag);
    return status;
}

/* Loads a program: .irlc through the verifying loader, anything else through the compiler. */
static int load_program(const char *path, Chunk *c)
{
    if (!ends_with(path, ".irlc")) return compile_source(path, c, 0);
    char err[512];
    int rc = bytecode_load(path, c, err, sizeof err);
    if (rc == BC_OK) return EX_OK;
    fprintf(stderr, "irl: %s\n", err);
    return rc == BC_EIO ? EX_NOINPUT_ : EX_COMPILE;
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 1) return usage();
    return compile_source(argv[0], NULL, 1);
}

static int cmd_compile(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out = argv[++i];
        else if (argv[i][0] == '-' || in) return usage();
        else in = argv[i];
    }
    if (!in) return usage();
    char *def = NULL;
    if (!out) {
        size_t n = strlen(in);
        def = malloc(n + 3);
        if (!def) return EX_COMPILE;
        memcpy(def, in, n + 1);
        if (ends_with(def, ".irl")) strcat(def, "c");
        else strcat(def, ".irlc");
        out = def;
    }
    Chunk c;
    int status = compile_source(in, &c, 0);
    if (status == EX_OK) {
        char err[512];
        if (bytecode_write(&c, out, err, sizeof err) != BC_OK) {
            fprintf(stderr, "irl: %s\n", err);
            status = EX_NOINPUT_;
        }
        chunk_free(&c);
    }
    free(def);
    return status;
}

static int cmd_disasm(int argc, char **argv)
{
    if (argc != 1) return usage();
    Chunk c;
    int status = load_program(argv[0], &c);
    if (status != EX_OK) return status;
    disasm_chunk(&c, stdout);
    chunk_free(&c);
    return EX_OK;
}

/* --trace-exec: one disassembled line per executed instruction, on stderr. */
static void trace_instr(void *ctx, const Chunk *c, int pc, const Value *base)
{
    (void)base;
    disasm_instruction(c, pc, (FILE *)ctx);
}

/* Read the machine file of every device (bind.h) for the runtime, which gets the descriptions in ro->machines. */
static int bind_devices(const Chunk *c, const char *path, RunOptions *ro, DeviceMachine **machines)
{
    char err[600];
    int rc = bind_machines(c, path, ro, machines, err, sizeof err);
    if (rc != BIND_OK && err[0]) fprintf(stderr, "irl: %s\n", err);
    ro->machines = *machines;
    return rc == BIND_OK ? EX_OK : rc == BIND_EIO ? EX_NOINPUT_ : EX_COMPILE;
}

/* The modbus driver's register map (--driver modbus:map=FILE; without it the emulator's, built in) into *map
 * for the runtime, which gets it in ro->regmap. The other drivers take none. */
static int read_regmap(RunOptions *ro, RegMap *map)
{
    const char *colon = strchr(ro->driver, ':');
    if (strncmp(ro->driver, "modbus", 6) != 0 || (ro->driver[6] && ro->driver[6] != ':')) return EX_OK;
    char path[4096];
    Diag diag;
    diag_init(&diag, stderr);
    int rc = colon && driver_opt(colon + 1, "map", path, sizeof path)
                 ? regmap_load(path, map, &diag)
                 : regmap_load_text(regmap_emulator_file, regmap_emulator_text, strlen(regmap_emulator_text), map, &diag);
    diag_free(&diag);
    if (rc != REGMAP_OK) return rc == REGMAP_EIO ? EX_NOINPUT_ : EX_COMPILE;
    ro->regmap = map;
    return EX_OK;
}

static int cmd_run(int argc, char **argv)
{
    int trace = 0, n;
    const char *path = NULL;
    RunOptions ro; /* the motion side's options (runtime/exec/run_options.h) */
    char err[300];
    run_options_init(&ro);
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--trace-exec") == 0) trace = 1;
        else if ((n = run_options_parse(&ro, argc - i, argv + i, err, sizeof err)) > 0) i += n - 1;
        else if (n < 0) return fprintf(stderr, "irl: %s\n", err), run_options_free(&ro), usage();
        else if (argv[i][0] == '-' || path) return run_options_free(&ro), usage();
        else path = argv[i];
    }
    if (!path) return run_options_free(&ro), usage();
    if (!ro.online && ro.driver) return fprintf(stderr, "irl: --driver needs --online\n"), run_options_free(&ro), usage();
    if (!ro.online && ro.force) return fprintf(stderr, "irl: --force needs --online\n"), run_options_free(&ro), usage();
    if (!ro.online && ro.approach)
        return fprintf(stderr, "irl: --approach needs --online\n"), run_options_free(&ro), usage();
    if (!ro.closed_loop && ro.closed_loop_only) /* without the closed loop the machine is its setpoint */
        return fprintf(stderr, ro.online ? "irl: %s is a dry-run --closed-loop option: online the drives close the loop\n"
                       : "irl: %s needs --closed-loop: it sets up the closed loop's simulated machine, which a run "
                       "without it does not have (the machine follows its setpoints exactly)\n",
                       ro.closed_loop_only), run_options_free(&ro), usage();
    Chunk c;
    int status = load_program(path, &c);
    if (status != EX_OK) return run_options_free(&ro), status;
    Vm vm;
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (vm_init(&vm, &c, stdout, stderr) != VM_OK) {
        fprintf(stderr, "irl: out of memory\n");
        chunk_free(&c);
        return EX_RUNTIME;
    }
    if (trace) {
        vm.trace = trace_instr;
        vm.trace_ctx = stderr;
    }
    DeviceMachine *machines = NULL;
    RegMap regmap;
    status = ro.online ? exec_online_check(&ro) : EX_OK; /* a usage error before any file is read */
    if (status == EX_OK && ro.online) status = read_regmap(&ro, &regmap);
    if (status == EX_OK) status = bind_devices(&c, path, &ro, &machines);
    if (status != EX_OK) {
        /* nothing ran */
    } else if (ro.online) { /* real time against a driver, the dry-run's executor producing the setpoints */
        if (ro.force)
            fprintf(stderr, "irl: warning: --force: no pre-flight dry-run; the axes move without the whole program "
                    "checked first (each setpoint's limits are still re-checked)\n");
        else status = exec_online_preflight(&c, path, &ro); /* the whole program as a dry-run first */
        if (status == EX_OK) status = exec_online_run(&vm, &c, path, &ro);
    } else {
        ExecOffline ex; /* the dry-run: devices, virtual clock, checks, outputs (runtime/exec/exec_offline.h) */
        status = exec_offline_begin(&ex, &vm, &c, path, &ro);
        if (status == EX_OK) status = exec_offline_end(&ex, vm_run(&vm));
    }
    fflush(stdout);
    bind_free(machines);
    vm_free(&vm);
    chunk_free(&c);
    run_options_free(&ro);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("irl %s\n", IRL_VERSION);
        return EX_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) return help();
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 2, argv + 2);
    if (strcmp(cmd, "compile") == 0) return cmd_compile(argc - 2, argv + 2);
    if (strcmp(cmd, "disasm") == 0) return cmd_disasm(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "model") == 0) return model_cli_main(argc - 2, argv + 2);
    if (strcmp(cmd, "trace") == 0) return trace_cli_main(argc - 2, argv + 2);
    fprintf(stderr, "irl: unknown command '%s'\n", cmd);
    return usage();
}
