#!/usr/bin/env bash
# tests/sh/run_irlc_same.sh: `irl run p.irlc` prints exactly what `irl run p.irl` prints (stdout, stderr with
# its file:line:col, exit status) for every run-time test program; `irl compile` writes FILE.irlc by default.
set -u
cd "$(dirname "$0")/../lang/run"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for f in *.irl; do
    grep -qE '// (expect|exit):' "$f" || continue
    grep -q '// exit: 65' "$f" && continue   # compile errors: no bytecode to compare
    b=${f%.irl}
    "$IRL" compile "$f" -o "$tmp/$b.irlc" 2>"$tmp/cerr" || { echo "compile failed: $f"; cat "$tmp/cerr"; fail=1; continue; }
    "$IRL" run --out-temp --no-plots "$f" >"$tmp/a.out" 2>"$tmp/a.err"; ra=$?
    # run the .irlc from the same directory so relative names match
    cp "$tmp/$b.irlc" "./.$b.tmp.irlc" && "$IRL" run --out-temp --no-plots "./.$b.tmp.irlc" >"$tmp/b.out" 2>"$tmp/b.err"; rb=$?
    rm -f "./.$b.tmp.irlc"
    n=$((n + 1))
    if [ $ra != $rb ] || ! cmp -s "$tmp/a.out" "$tmp/b.out" || ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
        echo "differs: $f (exit $ra vs $rb)"; diff "$tmp/a.out" "$tmp/b.out" | head -5; diff "$tmp/a.err" "$tmp/b.err" | head -5
        fail=1
    fi
done
# default output name
cp sample.irl "$tmp/s.irl"; cp -r lib "$tmp/lib"
"$IRL" compile "$tmp/s.irl" && [ -f "$tmp/s.irlc" ] || { echo "compile without -o did not write s.irlc"; fail=1; }
echo "$n programs compared"
exit $fail
