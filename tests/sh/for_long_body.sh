#!/usr/bin/env bash
# tests/sh/for_long_body.sh: FORLOOP reaches back 32,768 instructions with its own sC; one instruction more and
# the code generator closes the loop with a JMP back (FORLOOP steps onto it). Both bodies run their three passes,
# and their .irlc files pass the verifier and print the same.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
# gen N: a FOR whose body is N one-instruction statements (ADDI).
gen() {
    echo "PROGRAM longfor; VAR i, x : INT; BEGIN FOR i := 1 TO 3 DO"
    for ((k = 0; k < $1; k++)); do echo "x := x + i;"; done
    echo "ENDFOR; PRINT x, i; ENDPROGRAM"
}
for n in 32767 32768; do
    gen $n >"$tmp/p$n.irl"
    want="$((n * 6)) 3"
    out=$("$IRL" run "$tmp/p$n.irl" 2>&1)
    [ "$out" = "$want" ] || { echo "FAIL: body of $n: printed '$out', expected '$want'"; fail=1; }
    "$IRL" compile "$tmp/p$n.irl" -o "$tmp/p$n.irlc" || { echo "FAIL: body of $n: compile"; fail=1; continue; }
    out=$("$IRL" run "$tmp/p$n.irlc" 2>&1)
    [ "$out" = "$want" ] || { echo "FAIL: body of $n from .irlc: printed '$out'"; fail=1; }
    "$IRL" disasm "$tmp/p$n.irlc" | grep -E 'FORLOOP|JMP' >"$tmp/d$n"
done
# body top at pc 7: 32,767 instructions end at 32,773, so FORLOOP at 32,774 jumps -32,768 itself
grep -q '^ *32774  FORLOOP   R0, R2..R3, -> 7 ' "$tmp/d32767" || { echo "FAIL: short form:"; cat "$tmp/d32767"; fail=1; }
# one more: FORLOOP at 32,775 steps over its exit JMP (-> 32,778) onto the JMP back to 7
grep -q '^ *32775  FORLOOP   R0, R2..R3, -> 32777 ' "$tmp/d32768" &&
    grep -q '^ *32776  JMP       -> 32778 ' "$tmp/d32768" && grep -q '^ *32777  JMP       -> 7 ' "$tmp/d32768" ||
    { echo "FAIL: long form:"; cat "$tmp/d32768"; fail=1; }
exit $fail
