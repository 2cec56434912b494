/* parser.y — the irl grammar: a pure bison parser whose actions only build the tree of ast.h (PROGRAM and
 * LIBRARY units; MACHINE descriptions share the expression grammar). Error recovery at the statement and
 * declaration level reports every mistake of a file in one run. */
%code requires {
#include "syntax.h"
#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif
typedef struct SynHandler { NodeList list; int present; } SynHandler;
}

%code {
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"

int yylex(YYSTYPE *lval, YYLTYPE *lloc, yyscan_t scanner);
static SrcLoc L(SyntaxCtx *pc, YYLTYPE loc);
static Node *mk(SyntaxCtx *pc, NodeKind kind, YYLTYPE loc);
static Node *mk_bin(SyntaxCtx *pc, int op, Node *a, Node *b, YYLTYPE loc);
static Node *mk_un(SyntaxCtx *pc, int op, Node *a, YYLTYPE loc);
static Node *mk_name(SyntaxCtx *pc, const char *name, YYLTYPE loc);
static void push(SyntaxCtx *pc, NodeList *list, Node *n);
static void push_all(SyntaxCtx *pc, NodeList *list, NodeList *more);
static NodeList one(SyntaxCtx *pc, Node *n);
static void syn_error(SyntaxCtx *pc, SrcLoc at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static Node *syn_routine_decls(SyntaxCtx *pc, Node *routine, NodeList decls);
static Node *syn_unit_term(SyntaxCtx *pc, const char *name, Node *power, YYLTYPE loc);
static Node *syn_unit_combine(SyntaxCtx *pc, Node *a, Node *b, int sign);
static int syn_io_kind(SyntaxCtx *pc, const char *name, YYLTYPE loc);
static void yyerror(YYLTYPE *loc, yyscan_t scanner, SyntaxCtx *pc, const char *msg);
static void syn_contextual(SyntaxCtx *pc, const char *got, const char *want, const char *alt, YYLTYPE loc);
static void syn_dropped(SyntaxCtx *pc, YYLTYPE from, YYLTYPE to);
static int syn_trigger_anchor(SyntaxCtx *pc, const char *a, const char *b, YYLTYPE loc);
static void syn_block_end(SyntaxCtx *pc, const char *open, const char *close, YYLTYPE loc);
static const char *syn_spell(SyntaxCtx *pc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
}

%define api.pure full
%define api.token.prefix {T_}
%define parse.error custom
%locations
%expect 0
%param {yyscan_t scanner}
%parse-param {SyntaxCtx *pc}

%union {
    Node *node;
    const char *str;
    NodeList list;
    SynHandler handler;
    int ival;
}

%token <node> NUMBER "number"
%token <str> IDENT "identifier" STRING "string" SYSVAR "system variable"
%token ASSIGN ":=" NE "<>" LE "<=" GE ">="
%token AND "AND" ARRAY "ARRAY" BEGIN "BEGIN" CASE "CASE" CIRC "CIRC" CONST "CONST" DEVICE "DEVICE"
%token DIV "DIV" DO "DO" ELSE "ELSE" ELSIF "ELSIF" ENDCASE "ENDCASE" ENDERROR "ENDERROR" ENDFOR "ENDFOR"
%token ENDFUNCTION "ENDFUNCTION" ENDIF "ENDIF" ENDLIBRARY "ENDLIBRARY" ENDLOOP "ENDLOOP" ENDMACHINE "ENDMACHINE"
%token ENDPROCEDURE "ENDPROCEDURE" ENDPROGRAM "ENDPROGRAM" ENDRECORD "ENDRECORD" ENDWHILE "ENDWHILE"
%token ERROR "ERROR" EXIT "EXIT" FALSE "FALSE" FOR "FOR" FUNCTION "FUNCTION" GMOVE "GMOVE" HALT "HALT"
%token HOLD "HOLD" IF "IF" IMPORT "IMPORT" IO "IO" LIBRARY "LIBRARY" LIN "LIN" LOOP "LOOP" MACHINE "MACHINE"
%token MOD "MOD" MOVE "MOVE" MOVE_INC "MOVE_INC" NOT "NOT" OF "OF" ON "ON" OR "OR" PRINT "PRINT"
%token PROCEDURE "PROCEDURE" PROFILE "PROFILE" PROGRAM "PROGRAM" PTP "PTP" PULSE "PULSE" RAISE "RAISE"
%token RECORD "RECORD" REPEAT "REPEAT" RETRY "RETRY" RETURN "RETURN" SKIP "SKIP" THEN "THEN"
%token TO "TO" TRUE "TRUE" TYPE "TYPE" UNTIL "UNTIL" VAR "VAR" WAIT "WAIT" WHILE "WHILE"
%token WITH "WITH"
/* trajectories as data */
%token FOLLOW "FOLLOW"
/* tasks, events, interrupts */
%token BRAKE "BRAKE" DISABLE "DISABLE" ENABLE "ENABLE" ENDTASK "ENDTASK" EVENT "EVENT" INTERRUPT "INTERRUPT"
%token SIGNAL "SIGNAL" START "START" TASK "TASK"
/* path-triggered I/O and trajectories as data (TRIGGER, SPLINE) */
%token AT "AT" SPLINE "SPLINE" TRIGGER "TRIGGER"

%type <node> unit routine stmt lvalue expr simple term factor postfix primary typeref unit_expr unit_term
%type <node> mitem opt_kind label with_item opt_device opt_by opt_timeout motion gmotion param_type
%type <node> opt_delay
%type <list> decls decl const_items type_items var_items const_item type_item var_item idlist stmts elsifs
%type <list> else_part case_arms labels args arglist exprs opt_with with_items params param_groups param_group
%type <list> fields field mitems
%type <handler> handler
%type <ival> relop addop mulop trigger_anchor

/* An error right after an item of a CONST/TYPE/VAR section recovers inside the section (so the items after it
 * keep their meaning) rather than ending the section: the shift wins over reducing the section. */
%precedence SECTION_END
%precedence error

%start unit

%%

/* unit: PROGRAM name ; decls BEGIN stmts [handler] ENDPROGRAM [;]
 *     | LIBRARY name ; decls ENDLIBRARY [;]
 *     | MACHINE name : backend ; items ENDMACHINE [;] */
unit
    : PROGRAM IDENT ';' decls BEGIN stmts handler ENDPROGRAM opt_semi
        { $$ = mk(pc, N_PROGRAM, @2); $$->name = $2; $$->list = $4; $$->body = $6;
          if ($7.present) { $$->flags |= NF_HANDLER; $$->handler = $7.list; }
          pc->root = $$; }
    | LIBRARY IDENT ';' decls ENDLIBRARY opt_semi
        { $$ = mk(pc, N_PROGRAM, @2); $$->name = $2; $$->list = $4; $$->flags |= SYN_LIBRARY; pc->root = $$; }
    | MACHINE IDENT ':' IDENT ';' mitems ENDMACHINE opt_semi
        { $$ = mk(pc, N_PROGRAM, @2); $$->name = $2; $$->lit.s = $4; $$->list = $6; $$->flags |= SYN_MACHINE;
          pc->root = $$; }
    ;

opt_semi: %empty | ';' ;

/* handler: [ON ERROR stmts ENDERROR [;]] */
handler
    : %empty                          { $$.list = (NodeList){0}; $$.present = 0; }
    | ON ERROR stmts ENDERROR opt_semi { $$.list = $3; $$.present = 1; }
    ;

/* ---- Declarations. ---- */

decls
    : %empty       { $$ = (NodeList){0}; }
    | decls decl   { $$ = $1; push_all(pc, &$$, &$2); }
    ;

/* decl: IMPORT "file" ; | CONST items | TYPE items | VAR items | DEVICE d : backend "file" ;
 *     | IO n : DIN|DOUT|AIN|AOUT channel ; | PROCEDURE ... | FUNCTION ... */
decl
    : IMPORT STRING ';'        { Node *n = mk(pc, D_IMPORT, @2); n->name = $2; $$ = one(pc, n); }
    | CONST const_items %prec SECTION_END { $$ = $2; }
    | TYPE type_items %prec SECTION_END  { $$ = $2; }
    | VAR var_items %prec SECTION_END    { $$ = $2; }
    | DEVICE IDENT ':' IDENT STRING ';'
        { Node *n = mk(pc, D_DEVICE, @2); n->name = $2; n->lit.s = $4;
          n->a = mk(pc, E_STRING, @5); n->a->lit.s = $5; $$ = one(pc, n); }
    | IO IDENT ':' IDENT expr ';'
        { Node *n = mk(pc, D_IO, @2); n->name = $2; n->flags = syn_io_kind(pc, $4, @4); n->a = $5;
          $$ = one(pc, n); }
    | routine                  { $$ = one(pc, $1); }
    | error ';'                { $$ = (NodeList){0}; pc->holes |= SYN_HOLE_DECL; }
    /* tasks, events, interrupts: EVENT names ; | TASK ... ENDTASK ; | INTERRUPT name [PRIORITY n] WHEN c DO p ; */
    | EVENT idlist ';'         { Node *n = mk(pc, D_EVENT, @1); n->list = $2; $$ = one(pc, n); }
    | TASK IDENT params ';' decls BEGIN stmts handler ENDTASK ';'
        { Node *n = mk(pc, N_ROUTINE, @2); n->name = $2; n->flags = NF_TASK; n->body = $7;
          if ($3.count) syn_error(pc, L(pc, @3), "a TASK takes no parameters (it shares the program's variables)");
          if ($8.present) { n->flags |= NF_HANDLER; n->handler = $8.list; }
          $$ = one(pc, syn_routine_decls(pc, n, $5)); }
    | INTERRUPT IDENT IDENT expr DO IDENT ';'
        { Node *n = mk(pc, D_INTERRUPT, @2); n->name = $2; n->a = $4; n->c = mk_name(pc, $6, @6);
          syn_contextual(pc, $3, "WHEN", "PRIORITY", @3); $$ = one(pc, n); }
    | INTERRUPT IDENT IDENT expr IDENT expr DO IDENT ';'
        { Node *n = mk(pc, D_INTERRUPT, @2); n->name = $2; n->b = $4; n->a = $6; n->c = mk_name(pc, $8, @8);
          syn_contextual(pc, $3, "PRIORITY", "WHEN", @3); syn_contextual(pc, $5, "WHEN", "DO", @5);
          $$ = one(pc, n); }
    ;

const_items: const_item | const_items const_item { $$ = $1; push_all(pc, &$$, &$2); } ;
type_items: type_item | type_items type_item { $$ = $1; push_all(pc, &$$, &$2); } ;
var_items: var_item | var_items var_item { $$ = $1; push_all(pc, &$$, &$2); } ;

/* const_item: name = expr ; */
const_item
    : IDENT '=' expr ';'   { Node *n = mk(pc, D_CONST, @1); n->name = $1; n->a = $3; $$ = one(pc, n); }
    | error ';'            { $$ = (NodeList){0}; pc->holes |= SYN_HOLE_DECL; }
    ;

/* type_item: name = typeref ; */
type_item
    : IDENT '=' typeref ';' { Node *n = mk(pc, D_TYPE, @1); n->name = $1; n->a = $3; $$ = one(pc, n); }
    | error ';'             { $$ = (NodeList){0}; pc->holes |= SYN_HOLE_DECL; }
    ;

/* var_item: names : typeref [:= expr] ; | names := expr ; */
var_item
    : idlist ':' typeref ';'
        { Node *n = mk(pc, D_VAR, @1); n->list = $1; n->a = $3; $$ = one(pc, n); }
    | idlist ':' typeref ASSIGN expr ';'
        { Node *n = mk(pc, D_VAR, @1); n->list = $1; n->a = $3; n->b = $5; $$ = one(pc, n); }
    | idlist ASSIGN expr ';'
        { Node *n = mk(pc, D_VAR, @1); n->list = $1; n->b = $3; $$ = one(pc, n); }
    | error ';'            { $$ = (NodeList){0}; pc->holes |= SYN_HOLE_DECL; }
    ;

idlist
    : IDENT                { $$ = one(pc, mk_name(pc, $1, @1)); }
    | idlist ',' IDENT     { $$ = $1; push(pc, &$$, mk_name(pc, $3, @3)); }
    ;

/* typeref: name [ '[' unit ']' ] | RECORD fields ENDRECORD | ARRAY '[' expr ']' OF typeref */
typeref
    : IDENT                { $$ = mk(pc, N_TYPEREF, @1); $$->name = $1; }
    | IDENT '[' unit_expr ']'
        { $$ = mk(pc, N_TYPEREF, @1); $$->name = $1; if ($3) push(pc, &$$->list, $3); }
    | RECORD fields ENDRECORD
        { $$ = mk(pc, N_TYPEREF, @1); $$->flags = TY_RECORD; $$->list = $2; }
    | ARRAY '[' expr ']' OF typeref
        { $$ = mk(pc, N_TYPEREF, @1); $$->flags = TY_ARRAY; $$->a = $3; $$->b = $6; }
    ;

fields: field | fields field { $$ = $1; push_all(pc, &$$, &$2); } ;
field
    : idlist ':' typeref ';' { Node *n = mk(pc, D_VAR, @1); n->list = $1; n->a = $3; $$ = one(pc, n); }
    ;

/* unit_expr: unit { (*|/) unit }   unit: name [^ integer] | %   (a declared dimension, e.g. [m/s^2]) */
unit_expr
    : unit_term                 { $$ = $1; }
    | unit_expr '*' unit_term   { $$ = syn_unit_combine(pc, $1, $3, 1); }
    | unit_expr '/' unit_term   { $$ = syn_unit_combine(pc, $1, $3, -1); }
    ;
unit_term
    : IDENT                     { $$ = syn_unit_term(pc, $1, NULL, @1); }
    | IDENT '^' NUMBER          { $$ = syn_unit_term(pc, $1, $3, @1); }
    | '%'                       { $$ = syn_unit_term(pc, "%", NULL, @1); }
    ;

/* routine: PROCEDURE name [params] ; decls BEGIN stmts [handler] ENDPROCEDURE ;
 *        | FUNCTION name [params] : typeref ; decls BEGIN stmts [handler] ENDFUNCTION ; */
routine
    : PROCEDURE IDENT params ';' decls BEGIN stmts handler ENDPROCEDURE ';'
        { $$ = mk(pc, N_ROUTINE, @2); $$->name = $2; $$->list = $3; $$->body = $7;
          if ($8.present) { $$->flags |= NF_HANDLER; $$->handler = $8.list; }
          $$ = syn_routine_decls(pc, $$, $5); }
    | FUNCTION IDENT params ':' typeref ';' decls BEGIN stmts handler ENDFUNCTION ';'
        { $$ = mk(pc, N_ROUTINE, @2); $$->name = $2; $$->flags = NF_FUNCTION; $$->list = $3; $$->b = $5;
          $$->body = $9;
          if ($10.present) { $$->flags |= NF_HANDLER; $$->handler = $10.list; }
          $$ = syn_routine_decls(pc, $$, $7); }
    ;

params
    : %empty                   { $$ = (NodeList){0}; }
    | '(' ')'                  { $$ = (NodeList){0}; }
    | '(' param_groups ')'     { $$ = $2; }
    ;
param_groups
    : param_group                      { $$ = $1; }
    | param_groups ';' param_group     { $$ = $1; push_all(pc, &$$, &$3); }
    ;
/* param_group: [VAR] names : typeref */
param_group
    : idlist ':' param_type
        { $$ = (NodeList){0};
          for (int i = 0; i < $1.count; i++) {
              Node *p = mk(pc, N_PARAM, @1); p->loc = $1.items[i]->loc; p->name = $1.items[i]->name; p->a = $3;
              push(pc, &$$, p);
          } }
    | VAR idlist ':' param_type
        { $$ = (NodeList){0};
          for (int i = 0; i < $2.count; i++) {
              Node *p = mk(pc, N_PARAM, @2); p->loc = $2.items[i]->loc; p->name = $2.items[i]->name; p->a = $4;
              p->flags |= NF_VARPARAM; push(pc, &$$, p);
          } }
    ;
param_type: typeref ;

/* ---- Statements. ---- */

stmts
    : %empty        { $$ = (NodeList){0}; }
    | stmts stmt    { $$ = $1; if ($2) push(pc, &$$, $2); }
    ;

stmt
    : lvalue ASSIGN expr ';'       { $$ = mk(pc, S_ASSIGN, @2); $$->a = $1; $$->b = $3; }
    | IDENT '(' args ')' ';'       { Node *c = mk(pc, E_CALL, @1); c->name = $1; c->list = $3;
                                     $$ = mk(pc, S_CALL, @1); $$->a = c; }
    | IDENT ';'                    { Node *c = mk(pc, E_CALL, @1); c->name = $1;
                                     $$ = mk(pc, S_CALL, @1); $$->a = c; }
    | IF expr THEN stmts elsifs else_part ENDIF ';'
        { $$ = mk(pc, S_IF, @1); Node *arm = mk(pc, N_ELSIF, @1); arm->a = $2; arm->list = $4;
          push(pc, &$$->list, arm); push_all(pc, &$$->list, &$5); $$->list2 = $6; }
    | WHILE expr DO stmts ENDWHILE ';'      { $$ = mk(pc, S_WHILE, @1); $$->a = $2; $$->list = $4; }
    | REPEAT stmts UNTIL expr ';'           { $$ = mk(pc, S_REPEAT, @1); $$->a = $4; $$->list = $2; }
    | FOR IDENT ASSIGN expr TO expr opt_by DO stmts ENDFOR ';'
        { $$ = mk(pc, S_FOR, @1); $$->a = mk_name(pc, $2, @2); $$->b = $4; $$->c = $6; $$->d = $7;
          $$->list = $9; }
    | CASE expr OF case_arms else_part ENDCASE ';'
        { $$ = mk(pc, S_CASE, @1); $$->a = $2; $$->list = $4; $$->list2 = $5; }
    | LOOP stmts ENDLOOP ';'       { $$ = mk(pc, S_LOOP, @1); $$->list = $2; }
    | EXIT ';'                     { $$ = mk(pc, S_EXIT, @1); }
    | RETURN ';'                   { $$ = mk(pc, S_RETURN, @1); }
    | RETURN expr ';'              { $$ = mk(pc, S_RETURN, @1); $$->a = $2; }
    | HALT ';'                     { $$ = mk(pc, S_HALT, @1); }
    | RETRY ';'                    { $$ = mk(pc, S_RETRY, @1); }
    | SKIP ';'                     { $$ = mk(pc, S_SKIP, @1); }
    | RAISE ';'                    { $$ = mk(pc, S_RAISE, @1); }
    | RAISE expr ';'               { $$ = mk(pc, S_RAISE, @1); $$->a = $2; }
    | PRINT ';'                    { $$ = mk(pc, S_PRINT, @1); }
    | PRINT exprs ';'              { $$ = mk(pc, S_PRINT, @1); $$->list = $2; }
    | MOVE opt_device motion opt_with ';'
        { $$ = $3; $$->loc = L(pc, @1); $$->a = $2; $$->list = $4; }
    | MOVE_INC opt_device motion opt_with ';'
        { $$ = $3; $$->loc = L(pc, @1); $$->a = $2; $$->list = $4; $$->flags |= NF_INC; }
    | GMOVE opt_device gmotion opt_with ';'
        { $$ = $3; $$->loc = L(pc, @1); $$->a = $2; $$->list = $4; }
    | WAIT expr opt_timeout ';'    { $$ = mk(pc, S_WAIT, @1); $$->a = $2; $$->b = $3; }
    | WAIT FOR expr opt_timeout ';' { $$ = mk(pc, S_WAIT_FOR, @1); $$->a = $3; $$->b = $4; }
    | PULSE IDENT FOR expr ';'     { $$ = mk(pc, S_PULSE, @1); $$->a = mk_name(pc, $2, @2); $$->b = $4; }
    /* TRIGGER [dev] AT d (FROM START | BEFORE END) [DELAY t] DO lvalue := expr ; */
    | TRIGGER opt_device AT expr trigger_anchor opt_delay DO lvalue ASSIGN expr ';'
        { $$ = mk(pc, S_TRIGGER, @1); $$->a = $2; $$->b = $4; $$->c = $6; $$->flags = $5;
          Node *as = mk(pc, S_ASSIGN, @9); as->a = $8; as->b = $10; $$->d = as; }
    | error ';'                    { $$ = NULL; pc->holes |= SYN_HOLE_STMT; syn_dropped(pc, @1, @2); }
    /* tasks, events, interrupts */
    | SIGNAL IDENT ';'             { $$ = mk(pc, S_SIGNAL, @1); $$->a = mk_name(pc, $2, @2); }
    | START IDENT ';'              { $$ = mk(pc, S_START, @1); $$->a = mk_name(pc, $2, @2); }
    | ENABLE IDENT ';'             { $$ = mk(pc, S_ENABLE, @1); $$->a = mk_name(pc, $2, @2); }
    | DISABLE IDENT ';'            { $$ = mk(pc, S_DISABLE, @1); $$->a = mk_name(pc, $2, @2); }
    | BRAKE IDENT ';'              { $$ = mk(pc, S_BRAKE, @1); $$->a = mk_name(pc, $2, @2); }
    ;

/* lvalue: name | $SYSVAR | lvalue . name | lvalue [ expr ] */
lvalue
    : IDENT                    { $$ = mk_name(pc, $1, @1); }
    | SYSVAR                   { $$ = mk(pc, E_SYSVAR, @1); $$->name = $1; }
    | lvalue '.' IDENT         { $$ = mk(pc, E_FIELD, @3); $$->a = $1; $$->name = $3; }
    | lvalue '[' expr ']'      { $$ = mk(pc, E_INDEX, @2); $$->a = $1; $$->b = $3; }
    ;

elsifs
    : %empty                           { $$ = (NodeList){0}; }
    | elsifs ELSIF expr THEN stmts     { Node *arm = mk(pc, N_ELSIF, @2); arm->a = $3; arm->list = $5;
                                         $$ = $1; push(pc, &$$, arm); }
    ;
else_part
    : %empty               { $$ = (NodeList){0}; }
    | ELSE stmts           { $$ = $2; }
    ;
opt_by
    : %empty               { $$ = NULL; }
    | IDENT expr           { $$ = $2; syn_contextual(pc, $1, "BY", "DO", @1); }
    ;

/* case_arms: labels : stmts { labels : stmts }
 * The arms are read as one flat run of "labels :" heads and statements so that a bare constant name can be a
 * label: after an arm's statement, a name is only told apart from the start of the next statement by the token
 * after it (':' or ',' make it a label; ':=', '.', '[', '(' or ';' a statement), which LALR(1) sees only once
 * the name is shifted, i.e. in one rule set where both continue. Each head opens a new N_CASE_ARM. */
case_arms
    : labels ':'           { Node *arm = mk(pc, N_CASE_ARM, @1); arm->list = $1; $$ = one(pc, arm); }
    | case_arms labels ':' { Node *arm = mk(pc, N_CASE_ARM, @2); arm->list = $2; $$ = $1; push(pc, &$$, arm); }
    | case_arms stmt       { $$ = $1; if ($2) push(pc, &$$.items[$$.count - 1]->list2, $2); }
    ;
labels
    : label                { $$ = one(pc, $1); }
    | labels ',' label     { $$ = $1; push(pc, &$$, $3); }
    ;
label
    : NUMBER               { $$ = $1; }
    | '-' NUMBER           { $$ = mk_un(pc, '-', $2, @1); }
    | STRING               { $$ = mk(pc, E_STRING, @1); $$->lit.s = $1; }
    | TRUE                 { $$ = mk(pc, E_BOOL, @1); $$->lit.b = true; }
    | FALSE                { $$ = mk(pc, E_BOOL, @1); $$->lit.b = false; }
    | '(' expr ')'         { $$ = $2; }
    | IDENT                { $$ = mk_name(pc, $1, @1); }
    ;

/* Motion: MOVE [dev] PTP e | LIN e | CIRC via , target | FOLLOW e [FOR t]   [WITH name := e, ...] */
opt_device
    : %empty               { $$ = NULL; }
    | IDENT                { $$ = mk_name(pc, $1, @1); }
    ;
motion
    : PTP expr             { $$ = mk(pc, S_MOVE, @1); $$->flags = MOVE_PTP; $$->b = $2; }
    | LIN expr             { $$ = mk(pc, S_MOVE, @1); $$->flags = MOVE_LIN; $$->b = $2; }
    | CIRC expr ',' expr   { $$ = mk(pc, S_MOVE, @1); $$->flags = MOVE_CIRC; $$->c = $2; $$->b = $4; }
    /* FOLLOW table | FOLLOW "file.csv" | FOLLOW f FOR duration */
    | FOLLOW expr          { $$ = mk(pc, S_MOVE, @1); $$->flags = MOVE_FOLLOW; $$->b = $2; }
    | FOLLOW expr FOR expr { $$ = mk(pc, S_MOVE, @1); $$->flags = MOVE_FOLLOW; $$->b = $2; $$->c = $4; }
    | SPLINE exprs         { $$ = mk(pc, S_MOVE, @1); $$->flags = MOVE_SPLINE; $$->list2 = $2; }
    ;
/* GMOVE [dev] TO g | HOLD t | PROFILE table   [WITH ...] */
gmotion
    : TO expr              { $$ = mk(pc, S_GMOVE, @1); $$->flags = GMOVE_TO; $$->b = $2; }
    | HOLD expr            { $$ = mk(pc, S_GMOVE, @1); $$->flags = GMOVE_HOLD; $$->b = $2; }
    | PROFILE expr         { $$ = mk(pc, S_GMOVE, @1); $$->flags = GMOVE_PROFILE; $$->b = $2; }
    ;
opt_with
    : %empty               { $$ = (NodeList){0}; }
    | WITH with_items      { $$ = $2; }
    ;
with_items
    : with_item                    { $$ = one(pc, $1); }
    | with_items ',' with_item     { $$ = $1; push(pc, &$$, $3); }
    ;
with_item
    : IDENT ASSIGN expr    { $$ = mk(pc, N_WITH, @1); $$->name = $1; $$->a = $3; }
    | HOLD ASSIGN expr     { $$ = mk(pc, N_WITH, @1); $$->name = "HOLD"; $$->a = $3; }
    ;
opt_timeout
    : %empty               { $$ = NULL; }
    | IDENT expr           { $$ = $2; syn_contextual(pc, $1, "TIMEOUT", "';'", @1); }
    ;
/* FROM START (START is a keyword: START task;) | BEFORE END */
trigger_anchor
    : IDENT START          { $$ = syn_trigger_anchor(pc, $1, "START", @1); }
    | IDENT IDENT          { $$ = syn_trigger_anchor(pc, $1, $2, @1); }
    ;
opt_delay
    : %empty               { $$ = NULL; }
    | IDENT expr           { $$ = $2; syn_contextual(pc, $1, "DELAY", "DO", @1); }
    ;

/* ---- Expressions (Pascal levels: relations < + - OR < * / DIV MOD AND @ < NOT, unary -). ---- */

/* expr: simple [relop simple] */
expr
    : simple                   { $$ = $1; }
    | simple relop simple      { $$ = mk_bin(pc, $2, $1, $3, @2); }
    ;
relop: '=' { $$ = '='; } | NE { $$ = OP_NE; } | '<' { $$ = '<'; } | LE { $$ = OP_LE; }
     | '>' { $$ = '>'; } | GE { $$ = OP_GE; } ;

/* simple: term { (+|-|OR) term } */
simple
    : term                     { $$ = $1; }
    | simple addop term        { $$ = mk_bin(pc, $2, $1, $3, @2); }
    ;
addop: '+' { $$ = '+'; } | '-' { $$ = '-'; } | OR { $$ = OP_OR; } ;

/* term: factor { (*|/|DIV|MOD|AND|@) factor } */
term
    : factor                   { $$ = $1; }
    | term mulop factor        { $$ = mk_bin(pc, $2, $1, $3, @2); }
    ;
mulop: '*' { $$ = '*'; } | '/' { $$ = '/'; } | DIV { $$ = OP_DIV; } | MOD { $$ = OP_MOD; }
     | AND { $$ = OP_AND; } | '@' { $$ = '@'; } ;

/* factor: NOT factor | - factor | + factor | postfix */
factor
    : postfix                  { $$ = $1; }
    | NOT factor               { $$ = mk_un(pc, OP_NOT, $2, @1); }
    | '-' factor               { $$ = mk_un(pc, '-', $2, @1); }
    | '+' factor               { $$ = $2; }
    ;

/* postfix: primary { . name | [ expr ] } */
postfix
    : primary                  { $$ = $1; }
    | postfix '.' IDENT        { $$ = mk(pc, E_FIELD, @3); $$->a = $1; $$->name = $3; }
    | postfix '[' expr ']'     { $$ = mk(pc, E_INDEX, @2); $$->a = $1; $$->b = $3; }
    ;

/* primary: number | string | TRUE | FALSE | name | name ( args ) | $SYSVAR | ( expr ) */
primary
    : NUMBER                   { $$ = $1; }
    | STRING                   { $$ = mk(pc, E_STRING, @1); $$->lit.s = $1; }
    | TRUE                     { $$ = mk(pc, E_BOOL, @1); $$->lit.b = true; }
    | FALSE                    { $$ = mk(pc, E_BOOL, @1); $$->lit.b = false; }
    | IDENT                    { $$ = mk_name(pc, $1, @1); }
    | IDENT '(' args ')'       { $$ = mk(pc, E_CALL, @1); $$->name = $1; $$->list = $3; }
    | SYSVAR                   { $$ = mk(pc, E_SYSVAR, @1); $$->name = $1; }
    | '(' expr ')'             { $$ = $2; }
    ;

args
    : %empty                   { $$ = (NodeList){0}; }
    | arglist                  { $$ = $1; }
    ;
arglist
    : expr                     { $$ = one(pc, $1); }
    | arglist ',' expr         { $$ = $1; push(pc, &$$, $3); }
    ;
exprs: arglist ;

/* ---- Machine descriptions (.irm, read by machine.c).
 * mitem: name = expr ;  |  word name = expr ;  |  word name [: kind] ; mitems ENDword ;
 * Properties are D_CONST (name, a=value, lit.s=qualifying word or NULL); blocks are D_TYPE (lit.s=word,
 * name, b=kind E_NAME or NULL, list=items). */
mitems
    : %empty                   { $$ = (NodeList){0}; }
    | mitems mitem             { $$ = $1; if ($2) push(pc, &$$, $2); }
    ;
mitem
    : IDENT '=' expr ';'
        { $$ = mk(pc, D_CONST, @1); $$->name = $1; $$->a = $3; }
    | IDENT IDENT '=' expr ';'
        { $$ = mk(pc, D_CONST, @2); $$->lit.s = $1; $$->name = $2; $$->a = $4; }
    | IDENT IDENT opt_kind ';' mitems IDENT ';'
        { $$ = mk(pc, D_TYPE, @2); $$->lit.s = $1; $$->name = $2; $$->b = $3; $$->list = $5;
          syn_block_end(pc, $1, $6, @6); }
    | error ';'                { $$ = NULL; }
    ;
opt_kind
    : %empty                   { $$ = NULL; }
    | ':' IDENT                { $$ = mk_name(pc, $2, @2); }
    ;

%%

/* The SrcLoc of a bison location (its start). */
static SrcLoc L(SyntaxCtx *pc, YYLTYPE loc)
{
    return (SrcLoc){pc->file, loc.first_line, loc.first_column};
}

/* A node of `kind` at the start of `loc`. */
static Node *mk(SyntaxCtx *pc, NodeKind kind, YYLTYPE loc)
{
    return ast_node(pc->arena, kind, L(pc, loc));
}

/* A binary operation at its operator. */
static Node *mk_bin(SyntaxCtx *pc, int op, Node *a, Node *b, YYLTYPE loc)
{
    Node *n = mk(pc, E_BINARY, loc);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

/* A unary operation at its operator. */
static Node *mk_un(SyntaxCtx *pc, int op, Node *a, YYLTYPE loc)
{
    Node *n = mk(pc, E_UNARY, loc);
    n->op = op;
    n->a = a;
    return n;
}

/* An E_NAME. */
static Node *mk_name(SyntaxCtx *pc, const char *name, YYLTYPE loc)
{
    Node *n = mk(pc, E_NAME, loc);
    n->name = name;
    return n;
}

/* Append one node. */
static void push(SyntaxCtx *pc, NodeList *list, Node *n)
{
    ast_list_push(pc->arena, list, n);
}

/* Append every node of `more`. */
static void push_all(SyntaxCtx *pc, NodeList *list, NodeList *more)
{
    for (int i = 0; i < more->count; i++)
        ast_list_push(pc->arena, list, more->items[i]);
}

/* A list of one node. */
static NodeList one(SyntaxCtx *pc, Node *n)
{
    NodeList l = {0};
    ast_list_push(pc->arena, &l, n);
    return l;
}

/* A syntax error found by an action (counted like the parser's own). */
static void syn_error(SyntaxCtx *pc, SrcLoc at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(pc->diag, "error", at, fmt, ap);
    va_end(ap);
    pc->errors++;
}

/* Attach a routine's declarations; only CONST, TYPE and VAR may be local (routines are not nested). */
static Node *syn_routine_decls(SyntaxCtx *pc, Node *routine, NodeList decls)
{
    NodeList keep = {0};
    for (int i = 0; i < decls.count; i++) {
        Node *d = decls.items[i];
        switch (d->kind) {
        case N_ROUTINE:
            syn_error(pc, d->loc, "%s '%s' is declared inside '%s': %s are declared at program level only",
                      d->flags & NF_TASK ? "TASK" : d->flags & NF_FUNCTION ? "function" : "procedure", d->name,
                      routine->name, d->flags & NF_TASK ? "tasks" : "procedures and functions");
            break;
        /* tasks, events, interrupts */
        case D_EVENT:
        case D_INTERRUPT:
            syn_error(pc, d->loc, "%s declared inside '%s': events and interrupts are declared at program level only",
                      d->kind == D_EVENT ? "EVENT" : "INTERRUPT", routine->name);
            break;
        case D_IMPORT:
            syn_error(pc, d->loc, "IMPORT inside '%s': imports belong at program or library level", routine->name);
            break;
        case D_DEVICE:
        case D_IO:
            syn_error(pc, d->loc, "%s '%s' is declared inside '%s': devices and I/O points are declared at program "
                      "level only", d->kind == D_DEVICE ? "DEVICE" : "IO", d->name, routine->name);
            break;
        default:
            push(pc, &keep, d);
        }
    }
    routine->list2 = keep;
    return routine;
}

/* A formatted string in the arena (unit spellings for messages). */
static const char *syn_spell(SyntaxCtx *pc, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return arena_strdup(pc->arena, buf);
}

/* One unit of a declared dimension: a literal-table unit, optionally raised to an integer power. */
static Node *syn_unit_term(SyntaxCtx *pc, const char *name, Node *power, YYLTYPE loc)
{
    double factor;
    Dim dim;
    Node *n = mk(pc, E_REAL, loc);
    n->flags |= NF_HAS_UNIT;
    if (!units_lookup(name, &factor, &dim)) {
        syn_error(pc, n->loc, "unknown unit '%s' (units: mm m deg rad s ms G G/s %% N Nm kg m/s m/s^2 rad/s "
                  "rad/s^2 deg/s rpm)", name);
        factor = 1;
        dim = (Dim){0};
    }
    if (power) {
        if (power->kind != E_INT || (power->flags & NF_HAS_UNIT) || power->lit.i < 1 || power->lit.i > 4) {
            syn_error(pc, power->loc, "expected a unit exponent from 1 to 4");
        } else {
            int p = (int)power->lit.i;
            double f = 1;
            for (int i = 0; i < p; i++)
                f *= factor;
            factor = f;
            for (int k = 0; k < DIM_COUNT; k++)
                dim.e[k] = (int8_t)(dim.e[k] * p);
        }
    }
    n->lit.r = factor;
    dim.any = false;
    n->dim = dim;
    n->name = name;
    if (power && power->kind == E_INT)
        n->name = syn_spell(pc, "%s^%lld", name, (long long)power->lit.i);
    return n;
}

/* a * b (sign 1) or a / b (sign -1) of two unit terms. */
static Node *syn_unit_combine(SyntaxCtx *pc, Node *a, Node *b, int sign)
{
    a->name = syn_spell(pc, "%s%c%s", a->name, sign > 0 ? '*' : '/', b->name);
    a->lit.r = sign > 0 ? a->lit.r * b->lit.r : a->lit.r / b->lit.r;
    for (int k = 0; k < DIM_COUNT; k++)
        a->dim.e[k] = (int8_t)(a->dim.e[k] + sign * b->dim.e[k]);
    return a;
}

/* A machine-file block `WORD name; ... ENDWORD;` must close with END followed by its opening word. */
static void syn_block_end(SyntaxCtx *pc, const char *open, const char *close, YYLTYPE loc)
{
    if (strncasecmp(close, "END", 3) != 0 || strcasecmp(close + 3, open) != 0)
        syn_error(pc, L(pc, loc), "expected END%s to close the %s block, found identifier '%s'", open, open, close);
}

/* BY and TIMEOUT are words only where they are expected (so `by` stays a usable name): check the spelling. */
static void syn_contextual(SyntaxCtx *pc, const char *got, const char *want, const char *alt, YYLTYPE loc)
{
    if (strcasecmp(got, want) != 0)
        syn_error(pc, L(pc, loc), "expected %s or %s, found identifier '%s'", want, alt, got);
}

/* TRIGGER's anchor: FROM START (0) or BEFORE END (TRIGGER_END). */
static int syn_trigger_anchor(SyntaxCtx *pc, const char *a, const char *b, YYLTYPE loc)
{
    if (strcasecmp(a, "FROM") == 0 && strcasecmp(b, "START") == 0) return 0;
    if (strcasecmp(a, "BEFORE") == 0 && strcasecmp(b, "END") == 0) return TRIGGER_END;
    syn_error(pc, L(pc, loc), "expected FROM START or BEFORE END after the TRIGGER's distance, found '%s %s'", a, b);
    return 0;
}

/* The IoKind named after the ':' of an IO declaration. */
static int syn_io_kind(SyntaxCtx *pc, const char *name, YYLTYPE loc)
{
    static const char *const kinds[] = {"DIN", "DOUT", "AIN", "AOUT"};
    for (int i = 0; i < 4; i++)
        if (strcasecmp(name, kinds[i]) == 0)
            return IO_DIN + i;
    syn_error(pc, L(pc, loc), "expected DIN, DOUT, AIN or AOUT, found identifier '%s'", name);
    return IO_DIN;
}

/* The text of a symbol for messages: keywords and operators quoted, classes ("identifier") plain. */
static void syn_symbol_text(char *buf, size_t cap, yysymbol_kind_t sym)
{
    const char *name = yysymbol_name(sym);
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
        name++;
        n -= 2;
    }
    if (name[0] == '\'' || (name[0] >= 'a' && name[0] <= 'z'))
        snprintf(buf, cap, "%.*s", (int)n, name);
    else
        snprintf(buf, cap, "'%.*s'", (int)n, name);
}

/* Is sym one of `set`? */
static int syn_in(yysymbol_kind_t sym, const yysymbol_kind_t *set, int n)
{
    for (int i = 0; i < n; i++)
        if (set[i] == sym)
            return 1;
    return 0;
}

/* A statement from `from` to `to` was dropped by error recovery: the blocks it opened and did not close will
 * have their closing words (ENDWHILE …) come as stray tokens, which are echoes of this mistake, not news; a
 * dropped span made of such stray words counts them off again. */
static void syn_dropped(SyntaxCtx *pc, YYLTYPE from, YYLTYPE to)
{
    int net = 0;
    unsigned n = pc->nblk < SYN_BLOCK_LOG ? pc->nblk : SYN_BLOCK_LOG;
    for (unsigned k = 0; k < n; k++) {
        unsigned i = (pc->nblk - 1 - k) % SYN_BLOCK_LOG;
        int line = pc->blk[i].line, col = pc->blk[i].col;
        bool after_from = line > from.first_line || (line == from.first_line && col >= from.first_column);
        bool before_to = line < to.last_line || (line == to.last_line && col < to.last_column);
        if (after_from && before_to)
            net += pc->blk[i].delta;
    }
    /* The stray closing words are dropped the same way (also silently, when bison is still recovering from the
     * first error), so a dropped span that closes more than it opens pays the count back. */
    pc->stray_closers += net;
    if (pc->stray_closers < 0)
        pc->stray_closers = 0;
}

/* A syntax error: "expected A, B or C, found X", with families of tokens named by what they start. */
static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, SyntaxCtx *pc)
{
    (void)scanner;
    const yysymbol_kind_t stmt_start[] = {
        YYSYMBOL_IF, YYSYMBOL_WHILE, YYSYMBOL_REPEAT, YYSYMBOL_FOR, YYSYMBOL_CASE, YYSYMBOL_LOOP, YYSYMBOL_EXIT,
        YYSYMBOL_RETURN, YYSYMBOL_HALT, YYSYMBOL_PRINT, YYSYMBOL_RAISE, YYSYMBOL_RETRY, YYSYMBOL_SKIP,
        YYSYMBOL_MOVE, YYSYMBOL_MOVE_INC, YYSYMBOL_GMOVE, YYSYMBOL_WAIT, YYSYMBOL_PULSE, YYSYMBOL_IDENT,
        YYSYMBOL_SYSVAR,
        /* tasks, events, interrupts */
        YYSYMBOL_SIGNAL, YYSYMBOL_START, YYSYMBOL_ENABLE, YYSYMBOL_DISABLE, YYSYMBOL_BRAKE,
        /* path-triggered I/O */
        YYSYMBOL_TRIGGER};
    const yysymbol_kind_t expr_start[] = {
        YYSYMBOL_NUMBER, YYSYMBOL_STRING, YYSYMBOL_TRUE, YYSYMBOL_FALSE, YYSYMBOL_IDENT, YYSYMBOL_SYSVAR,
        YYSYMBOL_NOT, YYTRANSLATE('('), YYTRANSLATE('-'), YYTRANSLATE('+')};
    const yysymbol_kind_t decl_start[] = {
        YYSYMBOL_CONST, YYSYMBOL_TYPE, YYSYMBOL_VAR, YYSYMBOL_IMPORT, YYSYMBOL_DEVICE, YYSYMBOL_IO,
        YYSYMBOL_PROCEDURE, YYSYMBOL_FUNCTION,
        /* tasks, events, interrupts */
        YYSYMBOL_EVENT, YYSYMBOL_TASK, YYSYMBOL_INTERRUPT};
    const yysymbol_kind_t operators[] = {
        YYTRANSLATE('+'), YYTRANSLATE('-'), YYTRANSLATE('*'), YYTRANSLATE('/'), YYTRANSLATE('@'),
        YYTRANSLATE('='), YYTRANSLATE('<'), YYTRANSLATE('>'), YYTRANSLATE('.'), YYTRANSLATE('['), YYSYMBOL_NE,
        YYSYMBOL_LE, YYSYMBOL_GE, YYSYMBOL_DIV, YYSYMBOL_MOD, YYSYMBOL_AND, YYSYMBOL_OR};
    const yysymbol_kind_t label_start[] = {
        YYSYMBOL_NUMBER, YYSYMBOL_STRING, YYSYMBOL_TRUE, YYSYMBOL_FALSE, YYTRANSLATE('('), YYTRANSLATE('-'),
        YYSYMBOL_IDENT};
    yysymbol_kind_t exp[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
    if (n < 0)
        n = 0;
    int is_stmt = syn_in(YYSYMBOL_IF, exp, n), is_decl = syn_in(YYSYMBOL_CONST, exp, n);
    int is_expr = syn_in(YYSYMBOL_NOT, exp, n), is_op = syn_in(YYTRANSLATE('*'), exp, n);
    int is_label = !is_expr && syn_in(YYSYMBOL_NUMBER, exp, n) && syn_in(YYSYMBOL_STRING, exp, n) &&
                   syn_in(YYTRANSLATE('-'), exp, n);
    char want[512] = "", item[64];
    const char *words[YYNTOKENS + 4];
    char texts[YYNTOKENS][40];
    int k = 0;
    for (int i = 0; i < n; i++) {
        yysymbol_kind_t s = exp[i];
        if ((is_stmt && syn_in(s, stmt_start, sizeof stmt_start / sizeof *stmt_start)) ||
            (is_decl && syn_in(s, decl_start, sizeof decl_start / sizeof *decl_start)) ||
            (is_expr && syn_in(s, expr_start, sizeof expr_start / sizeof *expr_start)) ||
            (is_op && syn_in(s, operators, sizeof operators / sizeof *operators)) ||
            (is_label && syn_in(s, label_start, sizeof label_start / sizeof *label_start)))
            continue;
        syn_symbol_text(texts[k], sizeof texts[k], s);
        words[k] = texts[k];
        k++;
    }
    /* An operator can always follow an operand; name the operators only when nothing else fits. */
    if (is_op && k == 0)
        words[k++] = "an operator";
    if (is_decl)
        words[k++] = "a declaration";
    if (is_label)
        words[k++] = "a case label";
    if (is_stmt)
        words[k++] = "a statement";
    if (is_expr)
        words[k++] = "an expression";
    for (int i = 0; i < k && i < 6; i++) {
        if (i > 0)
            strcat(want, i == k - 1 ? " or " : ", ");
        strncat(want, words[i], sizeof want - strlen(want) - 1);
    }
    yysymbol_kind_t got = yypcontext_token(ctx);
    char found[128];
    if ((got == YYSYMBOL_IDENT || got == YYSYMBOL_NUMBER || got == YYSYMBOL_SYSVAR) && pc->tok_text) {
        syn_symbol_text(item, sizeof item, got);
        snprintf(found, sizeof found, "%s '%.60s'", got == YYSYMBOL_SYSVAR ? "system variable" : item,
                 pc->tok_text);
    } else {
        syn_symbol_text(found, sizeof found, got);
    }
    const YYLTYPE *loc = yypcontext_location(ctx);
    SrcLoc at = L(pc, *loc);
    /* A missing ';' at the end of a line is reported where it belongs, after the previous token. */
    if (got == YYSYMBOL_YYEOF && pc->tok_end_line > 0) {
        /* So is anything missing at the end of the file: right after the last token (the end of file itself
         * is no token, so the scanner's last token is that one). */
        at.line = pc->tok_end_line;
        at.col = pc->tok_end_col;
    } else if (k == 1 && strcmp(words[0], "';'") == 0 && pc->prev_line > 0 &&
        pc->prev_line < loc->first_line) {
        at.line = pc->prev_line;
        at.col = pc->prev_end_col;
    }
    if (pc->stray_closers > 0 &&
        (got == YYSYMBOL_ENDIF || got == YYSYMBOL_ENDWHILE || got == YYSYMBOL_ENDFOR || got == YYSYMBOL_ENDCASE ||
         got == YYSYMBOL_ENDLOOP || got == YYSYMBOL_UNTIL)) {
        return 0; /* the closing word of a block whose opening was dropped with a broken statement; recovery
                   * drops it with the rest of its statement, and syn_dropped counts it off */
    }
    if (pc->lex_fatal || (pc->lex_error_line > 0 && (pc->lex_error_line == at.line ||
                                                     pc->lex_error_line == loc->first_line)))
        return 0; /* the scanner already reported the mistake this error follows from */
    if (k == 0 || k > 6)
        syn_error(pc, at, "unexpected %s", found);
    else
        syn_error(pc, at, "expected %s, found %s", want, found);
    return 0;
}

/* Errors bison reports on its own (the parser stack running out on absurdly deep nesting). */
static void yyerror(YYLTYPE *loc, yyscan_t scanner, SyntaxCtx *pc, const char *msg)
{
    (void)scanner;
    if (strstr(msg, "exhausted"))
        syn_error(pc, L(pc, *loc), "nesting too deep for the parser (%s)", msg);
    else
        syn_error(pc, L(pc, *loc), "%s", msg);
}
