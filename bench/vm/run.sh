#!/usr/bin/env bash
# bench/vm/run.sh IRL: the three VM workloads in irl, Lua 5.4 and LuaJIT's interpreter (-joff), each run
# $RUNS times (default 5) in one go; prints the median wall time of each, the ratios irl / Lua 5.4 and
# irl / LuaJIT-interp (of wall time, and of CPU time, which a busy machine disturbs less), and checks that every
# language printed the same result. A benchmark, not a test.
#   loop  1e8 iterations of x := x + i * 0.5 - x / 3   (irl: a procedure's locals; Lua: locals)
#   fib   recursive fib(30)                              (irl: FUNCTION with an INT parameter; Lua: local function)
#   sin   1e7 calls of SIN                               (irl: built-in SIN on locals; Lua: local sin = math.sin)
set -u
here=$(cd "$(dirname "$0")" && pwd)
irl=${1:?usage: bench/vm/run.sh IRL}
irl=$(cd "$(dirname "$irl")" && pwd)/$(basename "$irl")
runs=${RUNS:-5}
lua=$(command -v lua5.4 || true)
luajit=$(command -v luajit || true)
[ -n "$lua" ] || echo "note: lua5.4 not found (apt-get install lua5.4): no Lua column" >&2
[ -n "$luajit" ] || echo "note: luajit not found (apt-get install luajit): no LuaJIT column" >&2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# time_runs NAME CMD...: runs CMD $runs times; prints "WALL CPU", the median wall time and the median CPU time
# (user + sys) in seconds; keeps the last stdout in $tmp/NAME.out. A failing run aborts that workload (a wrong
# program must not produce a figure).
time_runs() {
    local name=$1; shift
    local i t real user sys walls=() cpus=()
    local TIMEFORMAT='%R %U %S'
    for ((i = 0; i < runs; i++)); do
        if ! t=$( { time "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; } 2>&1 ); then
            echo "FAILED: $*" >&2; cat "$tmp/$name.err" >&2; return 1
        fi
        read -r real user sys <<<"$t"
        walls+=("$real"); cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')")
    done
    echo "$(median "${walls[@]}") $(median "${cpus[@]}")"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# same A B: true when the two printed numbers agree to 1e-12 relative (Lua prints %.17g, irl the shortest form).
same() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a;
                                     exit !(a == b || d <= 1e-12 * m) }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo "(load average $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each; wall time is only meaningful on an idle machine)"
printf '%-6s %9s %9s %12s %8s %13s   %-22s %s\n' workload irl lua5.4 luajit-joff irl/lua irl/luajit-i "CPU ratios (lua, jit)" result
status=0
for w in loop fib sin; do
    read -r ti ci <<<"$(time_runs "$w.irl" "$irl" run "$here/$w.irl")" || true
    [ -n "${ti:-}" ] || { status=1; continue; }
    ri=$(cat "$tmp/$w.irl.out")
    tl=- cl=- tj=- cj=- check=ok
    if [ -n "$lua" ]; then
        read -r tl cl <<<"$(time_runs "$w.lua" "$lua" "$here/$w.lua")" || true
        [ -n "${tl:-}" ] || { status=1; continue; }
        same "$ri" "$(cat "$tmp/$w.lua.out")" || { check="MISMATCH (lua $(cat "$tmp/$w.lua.out"))"; status=1; }
    fi
    if [ -n "$luajit" ]; then
        read -r tj cj <<<"$(time_runs "$w.luajit" "$luajit" -joff "$here/$w.lua")" || true
        [ -n "${tj:-}" ] || { status=1; continue; }
        same "$ri" "$(cat "$tmp/$w.luajit.out")" || { check="MISMATCH (luajit $(cat "$tmp/$w.luajit.out"))"; status=1; }
    fi
    r() { [ "$2" = - ] && echo - || ratio "$1" "$2"; }
    printf '%-6s %8ss %8ss %11ss %8s %13s   %-22s %s %s\n' "$w" "$ti" "$tl" "$tj" "$(r "$ti" "$tl")" "$(r "$ti" "$tj")" \
        "$(r "$ci" "$cl"), $(r "$ci" "$cj")" "$ri" "$check"
done
echo "(times: median wall; ratios: wall, then CPU user+sys; target irl/lua <= 1.0)"
exit $status
