#!/usr/bin/env bash
# tests/sh/bytecode_roundtrip.sh: every test and example program that runs (exit 0, or 1 for a run-time error)
# compiles to an .irlc that runs with the same stdout, stderr (file:line:col from the .irlc's line table) and exit
# status; compiling twice gives byte-identical files; `irl disasm` prints the same for the .irl and the .irlc;
# `irl compile` without -o writes FILE.irlc. Needs $IRL.
# With IRL_SANITIZED=1 (tests/run.sh, an ASan + UBSan build) the second compilation and the .irl's disassembly are
# left out: they run the same code as the first and the .irlc's, and comparing their bytes is the release pass's
# job (ASan fills fresh memory with a fixed byte, which would hide a writer that leaks uninitialised bytes).
set -u
cd "$(dirname "$0")/../.."
: "${IRL:?set IRL to the irl binary}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
note() { echo "FAIL $1: $2"; bad=$((bad + 1)); }
while IFS= read -r f; do
    dir=$(dirname "$f"); base=$(basename "$f")
    grep -q 'cmd: *\(check\|disasm\|compile\)' "$f" && continue
    # Run from the file's directory (imports are relative, and messages then name the same path).
    (cd "$dir" && timeout 60 "$IRL" run --out-temp --no-plots "$base" >"$tmp/a.out" 2>"$tmp/a.err"); rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 1 ] || continue
    (cd "$dir" && "$IRL" compile "$base" -o "$tmp/p.irlc" >"$tmp/c.out" 2>&1) || { note "$f" "irl compile failed: $(head -3 "$tmp/c.out")"; continue; }
    if [ "${IRL_SANITIZED:-0}" != 1 ]; then
        (cd "$dir" && "$IRL" compile "$base" -o "$tmp/q.irlc" >/dev/null 2>&1)
        cmp -s "$tmp/p.irlc" "$tmp/q.irlc" || note "$f" "two compilations differ (the writer is not deterministic)"
    fi
    (cd "$dir" && timeout 60 "$IRL" run --out-temp --no-plots "$tmp/p.irlc" >"$tmp/b.out" 2>"$tmp/b.err"); rc2=$?
    [ $rc2 -eq $rc ] || note "$f" "exit $rc2 from the .irlc, $rc from the .irl"
    cmp -s "$tmp/a.out" "$tmp/b.out" || note "$f" "stdout differs: $(diff "$tmp/a.out" "$tmp/b.out" | head -5)"
    cmp -s "$tmp/a.err" "$tmp/b.err" || note "$f" "stderr differs: $(diff "$tmp/a.err" "$tmp/b.err" | head -5)"
    (cd "$dir" && "$IRL" disasm "$tmp/p.irlc" >"$tmp/d2" 2>&1) || note "$f" "disasm of the .irlc: $(head -3 "$tmp/d2")"
    if [ "${IRL_SANITIZED:-0}" != 1 ]; then
        (cd "$dir" && "$IRL" disasm "$base" >"$tmp/d1" 2>&1)
        cmp -s "$tmp/d1" "$tmp/d2" || note "$f" "disasm of .irl and .irlc differ: $(diff "$tmp/d1" "$tmp/d2" | head -5)"
    fi
    n=$((n + 1))
done < <(find tests/lang programs -name '*.irl' 2>/dev/null | sort)
# the default output name, next to the source
cp tests/lang/run/sample.irl "$tmp/s.irl" && cp -r tests/lang/run/lib "$tmp/lib"
"$IRL" compile "$tmp/s.irl" >"$tmp/c.out" 2>&1 && [ -f "$tmp/s.irlc" ] ||
    note "compile without -o" "no s.irlc next to s.irl: $(head -3 "$tmp/c.out")"
echo "round-tripped $n programs, $bad failures"
[ $n -gt 0 ] || { echo "no program ran: nothing was tested"; exit 1; }
[ $bad -eq 0 ]
