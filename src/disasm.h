/* disasm.h — the disassembler: one line per instruction, operands decoded by kind from opcodes.h, with the
 * source line:col; `irl disasm` prints the same for a .irl (compiled) and its .irlc. */
#ifndef IRL_DISASM_H
#define IRL_DISASM_H

#include <stdio.h>

typedef struct Chunk Chunk; /* src/chunk.h */

/* Prints every routine of c (header line with name, parameters and frame size, then its instructions). */
void disasm_chunk(const Chunk *c, FILE *out);

/* Prints the instruction at pc (an index into c's code); returns the pc of the next instruction. */
int disasm_instruction(const Chunk *c, int pc, FILE *out);

#endif
