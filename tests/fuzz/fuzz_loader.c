/* fuzz_loader.c — libFuzzer target for the .irlc loader: any byte string is read and verified; whatever passes
 * is disassembled (which touches every table) and, with IRL_FUZZ_RESTAMP set, the input's checksum is first
 * re-stamped so that the fuzzer explores the sections and the verifier rather than CRC collisions.
 *   make fuzz-loader && build/fuzz/fuzz_loader tests/fuzz/corpus_loader -max_total_time=300 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "chunk.h"
#include "disasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int restamp = -1;
    if (restamp < 0) restamp = getenv("IRL_FUZZ_RESTAMP") != NULL;
    unsigned char *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    if (restamp && size >= 24) {
        /* make the header's length and checksum right, so every other byte is what gets tested */
        buf[16] = (unsigned char)size, buf[17] = (unsigned char)(size >> 8);
        buf[18] = (unsigned char)(size >> 16), buf[19] = (unsigned char)(size >> 24);
        bytecode_restamp(buf, size);
    }
    Chunk c;
    char err[512];
    if (bytecode_read_mem(buf, size, &c, err, sizeof err) == BC_OK) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            disasm_chunk(&c, null);
            fclose(null);
        }
        chunk_free(&c);
    } else if (!err[0] || strchr(err, '\n')) {
        abort(); /* every rejection carries exactly one line of message */
    }
    free(buf);
    return 0;
}
