#!/usr/bin/env bash
# bench/compile/run.sh IRL [LINES]: generates a LINES-line program (default 100000) with gen.sh, times
# `irl compile` on it 3 times and prints the median wall time and the lines per second. A benchmark, not a test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
irl=${1:?usage: bench/compile/run.sh IRL [LINES]}
lines=${2:-100000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$here/gen.sh" "$lines" >"$tmp/big.irl"
n=$(wc -l <"$tmp/big.irl")
times=()
for i in 1 2 3; do
    t0=$(date +%s.%N)
    if ! "$irl" compile "$tmp/big.irl" -o "$tmp/big.irlc" >"$tmp/out" 2>&1; then
        echo "FAILED: irl compile on the generated program:" >&2; head -20 "$tmp/out" >&2; exit 1
    fi
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
done
med=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 2p)
awk -v n="$n" -v t="$med" -v all="${times[*]}" -v sz="$(stat -c %s "$tmp/big.irlc")" \
    'BEGIN { printf "compile: %d lines in %.3f s (median of 3: %s) = %.0f lines/s; .irlc %d bytes\n", n, t, all, n / t, sz }'
