/* arena.c — bump allocation for compile-time data: blocks chained from the newest, freed in one call. */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (64 * 1024)
#define ARENA_ALIGN 16

struct ArenaBlock {
    ArenaBlock *next;
    size_t cap;
    _Alignas(16) unsigned char data[];
};

/* Initialise an empty arena (the first allocation makes the first block). */
void arena_init(Arena *a)
{
    a->head = NULL;
    a->used = a->cap = 0;
}

/* A new block of at least `size` usable bytes, pushed in front. */
static ArenaBlock *arena_grow(Arena *a, size_t size)
{
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    ArenaBlock *b = malloc(sizeof *b + cap);
    if (!b) {
        fprintf(stderr, "irl: out of memory (arena block of %zu bytes)\n", cap);
        abort();
    }
    b->cap = cap;
    b->next = a->head;
    a->head = b;
    a->used = 0;
    a->cap = cap;
    return b;
}

/* Zeroed, 16-byte aligned memory living until arena_free. */
void *arena_alloc(Arena *a, size_t size)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN) {
        fprintf(stderr, "irl: out of memory (arena request of %zu bytes)\n", size);
        abort();
    }
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (!a->head || a->cap - a->used < size) {
        if (size > ARENA_BLOCK / 4 && a->head) {
            /* A big request gets its own block behind the head, so the head keeps its free space. */
            ArenaBlock *big = malloc(sizeof *big + size);
            if (!big) {
                fprintf(stderr, "irl: out of memory (arena block of %zu bytes)\n", size);
                abort();
            }
            big->cap = size;
            big->next = a->head->next;
            a->head->next = big;
            memset(big->data, 0, size);
            return big->data;
        }
        arena_grow(a, size);
    }
    void *p = a->head->data + a->used;
    a->used += size;
    memset(p, 0, size);
    return p;
}

/* A copy of the first n bytes of s, NUL-terminated. */
char *arena_strndup(Arena *a, const char *s, size_t n)
{
    char *d = arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* A copy of s. */
char *arena_strdup(Arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

/* Release every block. */
void arena_free(Arena *a)
{
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    arena_init(a);
}
