/* arena.h — bump allocation for compile-time data (AST, types, symbols, strings): one arena, freed in one call. */
#ifndef IRL_ARENA_H
#define IRL_ARENA_H

#include <stddef.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
    ArenaBlock *head;
    size_t used, cap; /* in the head block */
} Arena;

void arena_init(Arena *a);
/* Zeroed, 16-byte aligned memory that lives until arena_free; aborts with a message when memory runs out. */
void *arena_alloc(Arena *a, size_t size);
char *arena_strdup(Arena *a, const char *s);
char *arena_strndup(Arena *a, const char *s, size_t n);
void arena_free(Arena *a);

#endif
