/* disasm.c — the disassembler, table-driven from opcodes.h: each operand printed by its kind (registers R3,
 * register runs R3..R6, constants by value, jumps by target pc, routines, built-ins and system variables by name,
 * a part of one as $TOOL+3), then the instruction's source position. It trusts nothing it prints: out-of-range operands show as such, so it
 * can also list a chunk the verifier rejected. */
#include "disasm.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chunk.h"

/* Prints s as a double-quoted literal with C escapes, cut after 40 bytes. */
static void print_quoted(FILE *out, const ChunkString *s)
{
    fputc('"', out);
    for (int32_t i = 0; i < s->len && i < 40; i++) {
        unsigned char ch = (unsigned char)s->text[i];
        if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", out);
        else if (ch == '\t') fputs("\\t", out);
        else if (ch < 0x20 || ch == 0x7f) fprintf(out, "\\x%02x", ch);
        else fputc(ch, out);
    }
    fputs(s->len > 40 ? "\"..." : "\"", out);
}

/* Prints d in the shortest %g form that reads back to the same double, with ".0" when it would look like an INT. */
static void print_real(FILE *out, double d)
{
    char s[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, d);
        if (strtod(s, NULL) == d) break;
    }
    fputs(s, out);
    if (!strpbrk(s, ".eEni")) fputs(".0", out); /* not for 1e+20, nan, inf */
}

/* The name of STRING constant i, or "?" when i is not in the pool. */
static const char *kstr(const Chunk *c, int64_t i) { return i >= 0 && i < c->nkstr ? c->kstr[i].text : "?"; }

/* Length of the register run in field A or B of ins (0: unknown, print just the first register). */
static unsigned run_length(const Chunk *c, Instr ins)
{
    switch (INSTR_OP(ins)) {
    case OP_IDQ: case OP_PRINTORI: return 4;
    case OP_PRINTPOS: return 3;
    case OP_PRINTPOSE: return 7;
    case OP_PRINTJ: return 13;
    case OP_FORPREP: case OP_FORLOOP: return 2;
    case OP_ZERO: case OP_RET: return INSTR_B(ins);
    case OP_MOVN: case OP_LOADR: case OP_STORER: case OP_MOTION: case OP_GETSYS: case OP_SETSYS: return INSTR_C(ins);
    case OP_BUILTIN: {
        unsigned b = INSTR_B(ins), n = INSTR_C(ins);
        if (b < VB_COUNT && (unsigned)irl_builtininfo[b].nresult > n) n = (unsigned)irl_builtininfo[b].nresult;
        return n;
    }
    case OP_CALL: {
        unsigned b = INSTR_B(ins);
        if (b >= (unsigned)c->nroutines) return 0;
        int32_t p = c->routines[b].param_slots, r = c->routines[b].result_slots;
        return (unsigned)(p > r ? p : r);
    }
    default: return 0;
    }
}

/* Prints one operand of kind k with value x (sx: the same field read as signed: sB, sC or sBx). */
static void print_operand(const Chunk *c, int pc, Instr ins, int k, uint32_t x, int64_t sx, FILE *out)
{
    switch ((OpndKind)k) {
    case OPK_REG: fprintf(out, "R%u", x); break;
    case OPK_RUN: {
        unsigned n = run_length(c, ins);
        if (n > 1) fprintf(out, "R%u..R%u", x, x + n - 1);
        else fprintf(out, "R%u", x);
        break;
    }
    case OPK_COUNT: fprintf(out, "#%u", x); break;
    case OPK_GLOBAL: fprintf(out, "G%u", x); break;
    case OPK_KINT:
        if (x < (uint32_t)c->nkint) fprintf(out, "%lld", (long long)c->kint[x]);
        else fprintf(out, "KI%u?", x);
        break;
    case OPK_KREAL:
        if (x < (uint32_t)c->nkreal) print_real(out, c->kreal[x]);
        else fprintf(out, "KR%u?", x);
        break;
    case OPK_KSTR:
        if (x < (uint32_t)c->nkstr) print_quoted(out, &c->kstr[x]);
        else fprintf(out, "KS%u?", x);
        break;
    case OPK_JUMP: fprintf(out, "-> %lld", (long long)pc + 1 + sx); break;
    case OPK_SIMM: fprintf(out, "%lld", (long long)sx); break;
    case OPK_UIMM: fprintf(out, "%u", x); break;
    case OPK_BOOL: fputs(x ? "true" : "false", out); break;
    case OPK_ROUTINE:
        if (x < (uint32_t)c->nroutines) fprintf(out, "%s", kstr(c, c->routines[x].name));
        else fprintf(out, "routine%u?", x);
        break;
    case OPK_BUILTIN:
        if (x < VB_COUNT) fputs(irl_builtininfo[x].name, out);
        else fprintf(out, "builtin%u?", x);
        break;
    case OPK_SYSSLOT: {
        if (x >= SV_SLOTS) {
            fprintf(out, "sys%u?", x);
            break;
        }
        int i = SV_COUNT - 1;
        while (irl_sysvarinfo[i].offset > (int)x) i--;
        fprintf(out, "$%s", irl_sysvarinfo[i].name);
        if (x > (uint32_t)irl_sysvarinfo[i].offset) fprintf(out, "+%u", x - (uint32_t)irl_sysvarinfo[i].offset);
        break;
    }
    case OPK_MOTION:
        if (x < MK_COUNT) fprintf(out, "\"%s\"", irl_motion_names[x]);
        else fprintf(out, "motion%u?", x);
        break;
    default: break;
    }
}

/* Prints one instruction: "  pc  OPNAME  operands  ; line:col" (file:line:col when not the main file). */
int disasm_instruction(const Chunk *c, int pc, FILE *out)
{
    if (pc < 0 || pc >= c->ncode) {
        fprintf(out, "%6d  (no instruction)\n", pc);
        return pc + 1;
    }
    Instr ins = c->code[pc];
    unsigned op = INSTR_OP(ins);
    char ops[160] = "";
    FILE *mem = fmemopen(ops, sizeof ops, "w");
    if (op >= OP_COUNT) {
        fprintf(out, "%6d  %-9s 0x%016llx", pc, "?", (unsigned long long)ins);
    } else {
        const OpInfo *info = &irl_opinfo[op];
        const unsigned char kinds[3] = {info->ka, info->kb, info->kc};
        bool wide = info->kc == OPK_WIDE, first = true;
        for (int f = 0; f < 3 && mem; f++) {
            if (kinds[f] == OPK_NONE || kinds[f] == OPK_WIDE) continue;
            uint32_t x = f == 0 ? INSTR_A(ins) : f == 1 ? (wide ? INSTR_BX(ins) : INSTR_B(ins)) : INSTR_C(ins);
            int64_t sx = f == 1 && wide ? (int64_t)(int32_t)x : (int64_t)(int16_t)x;
            if (!first) fputs(", ", mem);
            print_operand(c, pc, ins, kinds[f], x, sx, mem);
            first = false;
        }
        if (mem) fclose(mem), mem = NULL;
        else ops[0] = '\0';
        fprintf(out, "%6d  %-9s %-30s", pc, info->name, ops);
    }
    if (mem) fclose(mem);
    const ChunkLine *l = &c->lines[pc];
    if (l->file > 0 && l->file < c->nfiles) fprintf(out, " ; %s:%d:%d\n", kstr(c, c->files[l->file]), l->line, l->col);
    else fprintf(out, " ; %d:%d\n", l->line, l->col);
    return pc + 1;
}

/* Prints the routine header line: number, name, kind, parameters, frame and where it is declared. */
static void print_routine_header(const Chunk *c, int i, FILE *out)
{
    const ChunkRoutine *r = &c->routines[i];
    const char *file = r->file >= 0 && r->file < c->nfiles ? kstr(c, c->files[r->file]) : "?";
    if (i == 0) {
        fprintf(out, "routine 0 %s (main program): frame %d (globals %d), %s:%d\n", kstr(c, r->name), r->frame_size,
                c->nglobals, file, r->line);
    } else {
        fprintf(out, "routine %d %s: %s (", i, kstr(c, r->name), r->result_slots ? "function" : "procedure");
        for (int32_t p = 0; p < r->nparams; p++) {
            int32_t k = r->kinds + p;
            bool var = k >= 0 && k < c->nparam_kinds && c->param_kinds[k] == PARAM_VAR;
            fprintf(out, "%s%s", p ? ", " : "", var ? "VAR" : "value");
        }
        fprintf(out, ") in %d slots, result %d, frame %d, %s:%d\n", r->param_slots, r->result_slots, r->frame_size,
                file, r->line);
    }
    if (r->handler >= 0) fprintf(out, "  ON ERROR handler at %d\n", r->handler);
}

/* Prints every routine, in code order, with a blank line between them. */
void disasm_chunk(const Chunk *c, FILE *out)
{
    fprintf(out, "; %d routines, %d instructions, constants: %d INT, %d REAL, %d STRING\n", c->nroutines, c->ncode,
            c->nkint, c->nkreal, c->nkstr);
    for (int32_t i = 0; i < c->nroutines; i++) {
        const ChunkRoutine *r = &c->routines[i];
        fputc('\n', out);
        print_routine_header(c, i, out);
        int lo = r->entry < 0 ? 0 : r->entry, hi = r->end > c->ncode ? c->ncode : r->end;
        for (int pc = lo; pc < hi;) pc = disasm_instruction(c, pc, out);
    }
}
