/* ast.c — constructors for the syntax tree and the names of node kinds (for messages and dumps). */
#include "ast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A zeroed node of `kind` at `loc`; `component` starts at -1 (not a built-in component). */
Node *ast_node(Arena *arena, NodeKind kind, SrcLoc loc)
{
    Node *n = arena_alloc(arena, sizeof *n);
    n->kind = kind;
    n->loc = loc;
    n->component = -1;
    return n;
}

/* Append n to list, growing it in the arena (the old items stay behind; arenas never shrink). */
void ast_list_push(Arena *arena, NodeList *list, Node *n)
{
    if (list->count == list->cap) {
        int cap = list->cap ? list->cap * 2 : 4;
        Node **items = arena_alloc(arena, (size_t)cap * sizeof *items);
        if (list->count)
            memcpy(items, list->items, (size_t)list->count * sizeof *items);
        list->items = items;
        list->cap = cap;
    }
    list->items[list->count++] = n;
}

/* The name of a node kind: "E_BINARY", "S_MOVE", ... */
const char *ast_kind_name(NodeKind kind)
{
    static const char *const names[] = {
        "E_INT", "E_REAL", "E_BOOL", "E_STRING", "E_NAME", "E_SYSVAR", "E_FIELD", "E_INDEX", "E_UNARY",
        "E_BINARY", "E_CALL", "E_WIDEN",
        "S_ASSIGN", "S_CALL", "S_IF", "S_WHILE", "S_REPEAT", "S_FOR", "S_CASE", "S_LOOP", "S_EXIT", "S_RETURN",
        "S_HALT", "S_PRINT", "S_RAISE", "S_RETRY", "S_SKIP",
        "S_MOVE", "S_GMOVE", "S_WAIT", "S_WAIT_FOR", "S_PULSE",
        "S_TRIGGER",
        "D_CONST", "D_VAR", "D_TYPE", "D_IMPORT", "D_DEVICE", "D_IO",
        "N_ROUTINE", "N_PARAM", "N_TYPEREF", "N_CASE_ARM", "N_ELSIF", "N_WITH", "N_PROGRAM",
        "S_SIGNAL", "S_START", "S_ENABLE", "S_DISABLE", "S_BRAKE", "D_EVENT", "D_INTERRUPT",
    };
    _Static_assert(sizeof names / sizeof names[0] == D_INTERRUPT + 1, "ast_kind_name table out of step with NodeKind");
    if ((unsigned)kind <= D_INTERRUPT)
        return names[kind];
    return "?";
}
