/* fuzz_frontend.c — libFuzzer target for the front end: any bytes are scanned and parsed as one unit, the way
 * frontend_compile_file does it: a PROGRAM without imports (so no file is touched) goes through the checker,
 * also after syntax errors (the lenient check of the parts that parsed). Diagnostics go to /dev/null; the only
 * failures are crashes, sanitizer reports, leaks and hangs. Machine files: fuzz_machine.c. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "syntax.h"

/* One input: parse (keeping a recovered tree), check when it is a program without imports. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (size > 1 << 20)
        return 0;
    Diag diag;
    diag_init(&diag, devnull);
    Arena arena;
    arena_init(&arena);
    char *text = arena_strndup(&arena, (const char *)data, size);
    diag_add_source(&diag, "fuzz.irl", text, size);
    int nerr;
    unsigned holes = 0;
    Node *root = syntax_parse_partial(&arena, &diag, "fuzz.irl", text, size, &nerr, &holes);
    if (root && !(root->flags & (SYN_LIBRARY | SYN_MACHINE))) {
        int imports = 0;
        for (int i = 0; i < root->list.count; i++)
            imports += root->list.items[i]->kind == D_IMPORT;
        if (!imports)
            check_program_ex(&arena, &diag, root, holes);
    }
    arena_free(&arena);
    diag_free(&diag);
    return 0;
}
