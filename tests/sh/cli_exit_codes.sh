#!/usr/bin/env bash
# tests/sh/cli_exit_codes.sh: the irl command's exit codes (0 ok, 1 run-time error, 64 usage, 65 compile error
# or invalid bytecode, 66 missing input) and its usage/version/help output.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect CODE CMD...
    local want=$1; shift
    "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
    if [ "$got" != "$want" ]; then echo "FAIL: $* -> exit $got, expected $want"; cat "$tmp/err"; fail=1; fi
}
printf 'PROGRAM ok;\nBEGIN\n  PRINT 1;\nENDPROGRAM\n' >"$tmp/ok.irl"
printf 'PROGRAM bad;\nBEGIN\n  PRINT 1 + ;\nENDPROGRAM\n' >"$tmp/bad.irl"
printf 'PROGRAM rt;\n  VAR k : INT;\nBEGIN\n  PRINT 1 DIV k;\nENDPROGRAM\n' >"$tmp/rt.irl"
printf 'not bytecode at all' >"$tmp/junk.irlc"

expect 64 "$IRL"
expect 64 "$IRL" frobnicate
expect 64 "$IRL" run
expect 64 "$IRL" check a.irl b.irl
expect 64 "$IRL" compile
expect 64 "$IRL" run --no-such-option "$tmp/ok.irl"
grep -q '^usage: irl check FILE.irl' "$tmp/err" || { echo "FAIL: no usage line on stderr"; fail=1; }
expect 0 "$IRL" --version
grep -qE '^irl [0-9]+\.[0-9]+' "$tmp/out" || { echo "FAIL: --version prints '$(cat "$tmp/out")'"; fail=1; }
expect 0 "$IRL" help
grep -q 'exit status' "$tmp/out" || { echo "FAIL: help does not explain exit codes"; fail=1; }
expect 0 "$IRL" check "$tmp/ok.irl"
expect 0 "$IRL" run "$tmp/ok.irl"
[ "$(cat "$tmp/out")" = 1 ] || { echo "FAIL: run printed '$(cat "$tmp/out")'"; fail=1; }
expect 65 "$IRL" check "$tmp/bad.irl"
expect 65 "$IRL" run "$tmp/bad.irl"
expect 65 "$IRL" compile "$tmp/bad.irl"
[ -e "$tmp/bad.irlc" ] && { echo "FAIL: a failed compile left bad.irlc"; fail=1; }
expect 1 "$IRL" run "$tmp/rt.irl"
grep -q 'rt.irl:4:11: runtime error: division by zero (ERR_DIV_ZERO)' "$tmp/err" || { echo "FAIL: run-time message: $(cat "$tmp/err")"; fail=1; }
expect 66 "$IRL" check "$tmp/missing.irl"
expect 66 "$IRL" run "$tmp/missing.irl"
expect 66 "$IRL" run "$tmp/missing.irlc"
expect 66 "$IRL" disasm "$tmp/missing.irlc"
expect 65 "$IRL" run "$tmp/junk.irlc"
expect 0 "$IRL" compile "$tmp/ok.irl"
[ -f "$tmp/ok.irlc" ] || { echo "FAIL: compile did not write ok.irlc"; fail=1; }
expect 0 "$IRL" compile "$tmp/rt.irl" -o "$tmp/other.irlc"
expect 1 "$IRL" run "$tmp/other.irlc"
grep -q 'rt.irl:4:11: runtime error: division by zero (ERR_DIV_ZERO)' "$tmp/err" || { echo "FAIL: .irlc message: $(cat "$tmp/err")"; fail=1; }
expect 0 "$IRL" disasm "$tmp/ok.irlc"
grep -q 'PRINTI' "$tmp/out" || { echo "FAIL: disasm shows no PRINTI"; fail=1; }
exit $fail
