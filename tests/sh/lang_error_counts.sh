#!/usr/bin/env bash
# tests/sh/lang_error_counts.sh: "at most one message per real mistake" — every tests/lang/**/*.irl with a
# `// errors: N` directive must make `irl <cmd>` print exactly N "error:" lines on stderr (run.sh checks that
# the expected ones are there, in order; this checks that nothing else is).
set -u
cd "$(dirname "$0")/../.."
bad=0 n=0
while IFS= read -r f; do
    want=$(sed -n 's|^.*// errors: *\([0-9]*\).*|\1|p' "$f" | head -1)
    [ -n "$want" ] || continue
    cmd=$(sed -n 's|^.*// cmd: *||p' "$f" | head -1); cmd=${cmd:-check}
    # shellcheck disable=SC2086
    got=$(cd "$(dirname "$f")" && "$IRL" $cmd "$(basename "$f")" 2>&1 >/dev/null | grep -c ': error: ')
    n=$((n + 1))
    if [ "$got" != "$want" ]; then echo "$f: $got error messages, expected $want"; bad=1; fi
done < <(find tests/lang -name '*.irl' | sort)
echo "$n files counted"
[ $n -gt 0 ] && [ $bad = 0 ]
