#!/usr/bin/env bash
# tests/run.sh [--times] [BUILD_DIR...] [-- FILTER...]: the suite against each build (default build/release), in
# parallel.
#   unit tests    BUILD/tests/test_*     one line per case (tests/unit/utest.h)         named unit/test_vm/CASE
#   lang tests    tests/lang/**/*.irl,   expectations inline (tests/lang/README.md)      named lang/run/control,
#                 programs/*.irl                                                         programs/demo
#   golden tests  tests/golden/*/        trace and report against stored ones            named golden/demo
#                                        (tests/golden/README.md)
#   shell tests   tests/sh/*.sh          run with IRL=BUILD/irl, BUILD=BUILD; exit 0 = pass   named sh/online_sim
# FILTER (after --, or the words of $TESTS): run only the tests whose name contains one of the words, e.g.
#   tests/run.sh build/release -- vm             tests/run.sh build/asan -- sh/online lang/run
#   TESTS=golden tests/run.sh build/release      (a path such as tests/sh/online_sim.sh works too)
# JOBS=N: N cores' worth of tests at once (default: nproc), the longest first. A test counts for the share of a core
# it took last time (CPU / wall, allowing for a crowded machine; 10 % at least): one that mostly waits on the clock
# (an online run in real time, a lock) leaves the rest of its core to others.
# Each test writes to its own files; its lines ("ok NAME [build]" or "not ok NAME [build]") are printed when it
# ends, the failures' details after all, then the slowest tests, and last, alone on its line, "N passed, N failed".
# Exit status 0 only when nothing failed and something ran.
# Each build keeps its tests' wall and CPU seconds (user + sys) and share (%) in BUILD/test-times, read by the next
# run; a build without them takes tests/times/NAME (NAME: release, asan), the figures of a whole run committed with
# the suite (copy BUILD/test-times there after a run on an idle machine). --times prints BUILD/test-times, the most
# CPU first, and runs nothing.
# In a sanitizer build (irl linked with ASan) the shell tests get IRL_SANITIZED=1, and a shell test whose header has
# a line "# Not under sanitizers: WHY" is not run there (WHY says where its code is run under them).
set -u
cd "$(dirname "$0")/.."

builds=() filters=() times_only=0
while [ $# -gt 0 ]; do
    case $1 in
        --) shift; filters+=("$@"); break ;;
        -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --times) times_only=1 ;;
        *) builds+=("${1%/}") ;;
    esac
    shift
done
[ ${#builds[@]} -gt 0 ] || builds=(build/release)
# shellcheck disable=SC2206
[ -n "${TESTS:-}" ] && filters+=(${TESTS})
ncpu=$(nproc 2>/dev/null || echo 2)
JOBS=${JOBS:-$ncpu}
if [ $times_only = 1 ]; then
    for b in "${builds[@]}"; do
        [ -f "$b/test-times" ] || { echo "no $b/test-times: run the suite on $b first"; continue; }
        awk -v b="$b" '{ w += $2; c += $3; n++ } END { printf "== %s: %d jobs (a unit binary is one), wall %.1f s, CPU %.1f s\n", b, n, w, c }' \
            "$b/test-times"
        echo "   CPU s   wall s  share  test"
        sort -k3,3gr -k1,1 "$b/test-times" | awk '{ printf "%8.1f %8.1f %5s%%  %s\n", $3, $2, $4, $1 }'
    done
    exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# A filter word matches a test name as a substring; "tests/sh/x.sh" is taken as "sh/x".
wanted() { # $1 test name
    [ ${#filters[@]} -eq 0 ] && return 0
    local w
    for w in "${filters[@]}"; do
        w=${w#./}; w=${w#tests/}; w=${w%.sh}; w=${w%.irl}; w=${w%/}
        [[ "$1" == *"$w"* ]] && return 0
    done
    return 1
}

# ---- the tests: one job each, "kind build path name" ----

# One .irl file with inline directives (tests/lang/README.md):
#   // expect: TEXT        a line of stdout, in order (stdout must be exactly these lines)
#   // expect-err: TEXT    a stderr line containing TEXT, in order (no directive: stderr must be empty)
#   // exit: N             expected exit status (default 0)
#   // cmd: SUBCOMMAND     irl subcommand and options before the file (default "run")
# Sets why to the reasons it failed, empty when it passed. Runs in the job's own subshell (it changes directory);
# the suite starts some 600 of these, so it forks nothing but irl.
lang_why() { # $1 irl binary (absolute), $2 file, $3 scratch file prefix (absolute)
    local irl=$1 f=$2 t=$3 cmd="" exp_exit="" exp_out="" out err rc line n=0 pos want found
    local -a exp_err=()
    why=""
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            *"// cmd:"*) [ -z "$cmd" ] && { cmd=${line##*// cmd:}; cmd=${cmd#"${cmd%%[! ]*}"}; } ;;
            *"// exit:"*) [ -z "$exp_exit" ] && { exp_exit=${line##*// exit:}; exp_exit=${exp_exit#"${exp_exit%%[! ]*}"}
                                               exp_exit=${exp_exit%%[!0-9]*}; } ;;
            *"// expect-err:"*) want=${line##*// expect-err:}; exp_err+=("${want# }") ;;
            *"// expect:"*) want=${line##*// expect:}; exp_out+="${want# }"$'\n'; n=$((n + 1)) ;;
        esac
    done <"$f"
    cmd=${cmd:-run} exp_exit=${exp_exit:-0}
    while [[ $exp_out == *$'\n' ]]; do exp_out=${exp_out%$'\n'}; done
    if [[ $f == */* ]] && ! cd "${f%/*}"; then why="cannot enter ${f%/*}"; return; fi
    # shellcheck disable=SC2086
    timeout 60 "$irl" $cmd "${f##*/}" >"$t.out" 2>"$t.err"; rc=$?
    out=$(<"$t.out") err=$(<"$t.err")
    [ "$rc" = "$exp_exit" ] || why+="exit $rc, expected $exp_exit"$'\n'
    [ "$out" = "$exp_out" ] ||
        why+="stdout differs:"$'\n'"$(diff <(printf '%s\n' "$exp_out") <(printf '%s\n' "$out") | head -20)"$'\n'
    if [ ${#exp_err[@]} -gt 0 ]; then
        pos=0
        for want in "${exp_err[@]}"; do
            found=0 n=0
            while IFS= read -r line; do
                n=$((n + 1)); [ $n -le $pos ] && continue
                if [[ "$line" == *"$want"* ]]; then found=1; pos=$n; break; fi
            done <<<"$err"
            [ $found = 1 ] || why+="stderr lacks (in order): $want"$'\n'
        done
    elif [ -n "$err" ]; then
        why+="unexpected stderr:"$'\n'"$err"$'\n'
    fi
    # A crash under the sanitizers always fails, whatever the expected exit.
    if [[ $err =~ runtime\ error:.*(undefined|overflow|misaligned)|AddressSanitizer|LeakSanitizer ]]; then
        why+="sanitizer report:"$'\n'"$(head -20 "$t.err")"$'\n'
    fi
    why=${why%$'\n'}
}

# Seconds with one decimal from a difference in microseconds.
tenths() { # $1 microseconds
    local d=$((($1 + 50000) / 100000))
    printf '%d.%d' $((d / 10)) $((d % 10))
}

# Runs job $1 in the background's subshell: writes $tmp/$1.lines (the ok / not ok lines), $tmp/$1.why (the
# failures' details), $tmp/$1.count ("passed failed") and $tmp/$1.time (wall and CPU seconds: user + sys of the
# job and every process it waited for, which stays meaningful on a loaded machine).
run_job() { # $1 job index
    local kind=${jkind[$1]} b=${jbuild[$1]} path=${jpath[$1]} name=${jname[$1]} o=$tmp/$1 rc tag
    local t0=${EPOCHREALTIME/./} p=0 f=0 why load0 _
    read -r load0 _ </proc/loadavg
    tag="[${b##*/}]"
    case $kind in
        unit)
            timeout 600 "$path" >"$o.out" 2>&1; rc=$?
            local line cur=""
            while IFS= read -r line; do
                case $line in
                    "ok "*) p=$((p + 1)); echo "ok $name/${line#ok } $tag" >>"$o.lines"; cur="" ;;
                    "not ok "*) f=$((f + 1)); cur="$name/${line#not ok } $tag"; echo "not ok $cur" >>"$o.lines"
                        echo "not ok $cur" >>"$o.why" ;;
                    "#"*) [ -n "$cur" ] && echo "#   $line" >>"$o.why" ;;
                esac
            done <"$o.out"
            # utest exits 1 when a case failed; anything else (a crash, the timeout) is a failure of its own
            if [ $rc -ne 0 ] && { [ $f -eq 0 ] || [ $rc -ne 1 ]; }; then
                f=$((f + 1)); echo "not ok $name (exit $rc) $tag" >>"$o.lines"
                { echo "not ok $name (exit $rc) $tag"; tail -20 "$o.out" | sed 's/^/#   /'; } >>"$o.why"
            fi ;;
        lang)
            lang_why "${babs[$b]}/irl" "$path" "$o"
            if [ -z "$why" ]; then p=1; echo "ok $name $tag" >"$o.lines"
            else
                f=1; echo "not ok $name $tag" >"$o.lines"
                { echo "not ok $name $tag ($path)"; printf '%s\n' "$why" | head -40 | sed 's/^/#   /'; } >"$o.why"
            fi ;;
        sh|golden)
            local cmd=(bash "$path"); [ "$kind" = golden ] && cmd=(python3 tests/golden/golden.py "$path")
            IRL=${babs[$b]}/irl BUILD=${babs[$b]} IRL_SANITIZED=${sanitized[$b]} timeout 900 "${cmd[@]}" \
                >"$o.out" 2>&1; rc=$?
            if [ $rc -eq 0 ]; then p=1; echo "ok $name $tag" >"$o.lines"
            else
                f=1; echo "not ok $name $tag" >"$o.lines"
                { echo "not ok $name $tag ($path, exit $rc)"; tail -30 "$o.out" | sed 's/^/#   /'; } >"$o.why"
            fi ;;
    esac
    echo "$p $f" >"$o.count"
    # times, a builtin run in this shell (a pipe would time a fresh subshell): "XmY.ZZZs" for user and sys, of this
    # shell and of the processes it waited for
    local cpu=0 tm
    times >"$o.cpu"
    for tm in $(<"$o.cpu"); do
        [[ $tm =~ ^([0-9]+)m([0-9]+)\.([0-9]+)s$ ]] || continue
        cpu=$((cpu + (BASH_REMATCH[1] * 60 + 10#${BASH_REMATCH[2]}) * 1000000 + 10#${BASH_REMATCH[3]} * 1000))
    done
    # the share of a core it needs, in %: CPU / wall, scaled up by how crowded the machine was (a test that had
    # half a core got half its wall time on the CPU); 10 at least; 100 for a test under a second
    local wall=$((${EPOCHREALTIME/./} - t0)) load1 share=100 crowd
    read -r load1 _ </proc/loadavg
    crowd=$(((10#${load0/./} + 10#${load1/./}) / 2)); [ $crowd -lt $((100 * ncpu)) ] && crowd=$((100 * ncpu))
    if [ $wall -ge 1000000 ]; then
        share=$(((cpu / 1000) * crowd / (ncpu * (wall / 1000 + 1))))
        share=$((share < 10 ? 10 : share > 100 ? 100 : share))
    fi
    echo "$(tenths $wall) $(tenths $cpu) $share" >"$o.time"
    rm -f "$o.out" "$o.err" "$o.cpu"
}

jkind=() jbuild=() jpath=() jname=() jweight=() jshare=()
add_job() { # kind build path name default-weight (s)
    wanted "$4" || return 0
    local k=${#jkind[@]} w _ share
    jkind[k]=$1 jbuild[k]=$2 jpath[k]=$3 jname[k]=$4
    read -r w _ share <<<"${hist["$2 $4"]:-$5}"
    jweight[k]=$w jshare[k]=${share:-100}
}
declare -A hist=() sanitized=() babs=()
nosan=0
# the language tests: the files with directives (libraries imported by tests carry none)
mapfile -t langs < <(find tests/lang programs -name '*.irl' 2>/dev/null | sort |
                     xargs -r grep -lE '// (expect|expect-err|exit|cmd):')
for b in "${builds[@]}"; do
    [ -d "$b" ] || { echo "no build folder $b (make CFG=... all first)"; exit 1; }
    babs[$b]=$(cd "$b" && pwd) sanitized[$b]=0
    [ -x "$b/irl" ] && nm -D "$b/irl" 2>/dev/null | grep -q ' __asan_init' && sanitized[$b]=1
    # "wall cpu share": this build's last run, else the suite's own figures for a build of that name
    for h in "tests/times/${b##*/}" "$b/test-times"; do
        [ -f "$h" ] && while read -r n s; do hist["$b $n"]=$s; done <"$h"
    done
    for t in "$b"/tests/test_*; do
        [ -x "$t" ] && [ -f "$t" ] && add_job unit "$b" "$t" "unit/$(basename "$t")" 10
    done
    if [ -x "$b/irl" ]; then
        for f in "${langs[@]}"; do
            n=${f#tests/}; add_job lang "$b" "$f" "${n%.irl}" 1
        done
        for g in tests/golden/*/; do
            [ -f "$g/run" ] && add_job golden "$b" "${g%/}" "golden/$(basename "$g")" 10
        done
        for s in tests/sh/*.sh; do
            [ -f "$s" ] || continue
            if [ "${sanitized[$b]}" = 1 ] && grep -q '^# Not under sanitizers:' "$s"; then
                wanted "sh/$(basename "$s" .sh)" && nosan=$((nosan + 1))
                continue
            fi
            add_job sh "$b" "$s" "sh/$(basename "$s" .sh)" 60
        done
    fi
done
njobs=${#jkind[@]}

# Longest first (the last measured wall time, else a guess by kind), so that the tail of the run stays short.
mapfile -t order < <(for ((k = 0; k < njobs; k++)); do echo "${jweight[k]} $k"; done |
                     sort -k1,1gr -k2,2n | cut -d' ' -f2)

# ---- the pool ----
passed=0 failed=0
declare -A running=()
next=0
echo "== ${builds[*]}: $njobs tests, $JOBS cores${filters[*]:+ (filter: ${filters[*]})}"
[ $nosan -gt 0 ] && echo "   ($nosan shell tests marked 'Not under sanitizers' left out of the sanitizer builds)"
finish() { # $1 job index
    local c
    [ -f "$tmp/$1.lines" ] && printf '%s\n' "$(<"$tmp/$1.lines")"
    read -r -a c <"$tmp/$1.count"
    passed=$((passed + c[0])) failed=$((failed + c[1]))
}
busy=0   # the running tests' shares, in % of a core
start_job() { # $1 job index
    run_job "$1" &
    running[$!]=$1
    busy=$((busy + jshare[$1]))
}
while :; do
    # another test while the running ones leave any of the cores (their shares are estimates)
    while [ $next -lt $njobs ] && [ $busy -lt $((100 * JOBS)) ]; do
        start_job "${order[next]}"; next=$((next + 1))
    done
    [ ${#running[@]} -eq 0 ] && break
    done_pid=""
    wait -n -p done_pid "${!running[@]}"
    [ -n "$done_pid" ] || continue
    finish "${running[$done_pid]}"
    busy=$((busy - jshare[${running[$done_pid]}]))
    unset "running[$done_pid]"
done

# ---- the summary ----
whys=$(for ((k = 0; k < njobs; k++)); do [ -f "$tmp/$k.why" ] && printf '%s\n' "$(<"$tmp/$k.why")"; done)
if [ -n "$whys" ]; then
    echo; echo "failures:"; printf '%s\n' "$whys"
fi
for b in "${builds[@]}"; do
    # an unfiltered run forgets the tests that are gone
    if [ ${#filters[@]} -eq 0 ]; then
        for key in "${!hist[@]}"; do [ "${key%% *}" = "$b" ] && unset "hist[$key]"; done
    fi
    for ((k = 0; k < njobs; k++)); do
        [ "${jbuild[k]}" = "$b" ] && [ -f "$tmp/$k.time" ] && hist["$b ${jname[k]}"]=$(<"$tmp/$k.time")
    done
    for key in "${!hist[@]}"; do
        [ "${key%% *}" = "$b" ] && echo "${key#* } ${hist[$key]}"
    done | sort >"$b/test-times.new" && mv "$b/test-times.new" "$b/test-times"
done
if [ "$njobs" -gt 1 ]; then
    echo; echo "slowest (wall, CPU user + sys):"
    for ((k = 0; k < njobs; k++)); do
        [ -f "$tmp/$k.time" ] && read -r w c _ <"$tmp/$k.time" &&
            printf '%6s s %6s s  %s [%s]\n' "$w" "$c" "${jname[k]}" "${jbuild[k]##*/}"
    done | sort -gr | head -8
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $((passed + failed)) -gt 0 ]
