#!/usr/bin/env bash
# bench/compile/run.sh IRL [LINES]: generates a LINES-line program (default 100000) with gen.sh, times
# `irl compile` on it 3 times and prints the median wall time, the median CPU time (user + sys) and the lines per
# second of each. A benchmark, not a test.
set -u
here=$(cd "$(dirname "$0")" && pwd)
irl=${1:?usage: bench/compile/run.sh IRL [LINES]}
lines=${2:-100000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$here/gen.sh" "$lines" >"$tmp/big.irl"
n=$(wc -l <"$tmp/big.irl")
times=() cpus=()
TIMEFORMAT='%R %U %S'
for i in 1 2 3; do
    if ! t=$( { time "$irl" compile "$tmp/big.irl" -o "$tmp/big.irlc" >"$tmp/out" 2>&1; } 2>&1 ); then
        echo "FAILED: irl compile on the generated program:" >&2; head -20 "$tmp/out" >&2; exit 1
    fi
    read -r real user sys <<<"$t"
    times+=("$real"); cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')")
done
med=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 2p)
cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n 2p)
awk -v n="$n" -v t="$med" -v c="$cpu" -v all="${times[*]}" -v sz="$(stat -c %s "$tmp/big.irlc")" \
    'BEGIN { printf "compile: %d lines in %.3f s wall (median of 3: %s) = %.0f lines/s; CPU %.3f s = %.0f lines/s; .irlc %d bytes\n", n, t, all, n / t, c, n / c, sz }'
echo "(load average: $(cut -d' ' -f1-3 /proc/loadavg); wall time is only meaningful on an idle machine)"
