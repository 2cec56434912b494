#!/usr/bin/env bash
# tests/run.sh BUILD_DIR...: the whole suite against each build (e.g. build/release build/asan).
#   unit tests    BUILD/tests/test_*    each prints "ok NAME" / "not ok NAME" lines (tests/unit/utest.h)
#   lang tests    tests/lang/**/*.irl   expectations inline (see tests/lang/README.md)
#   shell tests   tests/sh/*.sh         run with IRL=BUILD/irl, BUILD=BUILD; exit 0 = pass
# Ends with "N passed, N failed" alone on its line. Exit status 0 only when nothing failed and something ran.
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0
declare -a failures=()
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "not ok $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/#   /' | head -40; }

run_unit() { # $1 build dir
    local t out rc
    for t in "$1"/tests/test_*; do
        [ -x "$t" ] || continue
        out=$(timeout 600 "$t" 2>&1); rc=$?
        local ok=$(printf '%s\n' "$out" | grep -c '^ok ') bad=$(printf '%s\n' "$out" | grep -c '^not ok ')
        passed=$((passed + ok))
        if [ "$bad" -gt 0 ]; then
            failed=$((failed + bad)); failures+=("$t")
            printf '%s\n' "$out" | grep -E '^(not ok|#)' | head -60
        elif [ $rc -ne 0 ]; then
            fail "$t (exit $rc)" "$(printf '%s\n' "$out" | tail -20)"
        fi
    done
}

# One .irl file with inline directives:
#   // expect: TEXT        a line of stdout, in order (stdout must be exactly these lines)
#   // expect-err: TEXT    a stderr line containing TEXT, in order (no directive: stderr must be empty)
#   // exit: N             expected exit status (default 0)
#   // cmd: SUBCOMMAND     irl subcommand and options before the file (default "run")
run_lang_file() { # $1 irl binary, $2 file
    local irl=$1 f=$2 cmd exp_exit exp_out exp_err out err rc tmp
    cmd=$(sed -n 's|^.*// cmd: *||p' "$f" | head -1); cmd=${cmd:-run}
    exp_exit=$(sed -n 's|^.*// exit: *\([0-9]*\).*|\1|p' "$f" | head -1); exp_exit=${exp_exit:-0}
    exp_out=$(sed -n 's|^.*// expect: \{0,1\}||p' "$f")
    tmp=$(mktemp -d)
    # shellcheck disable=SC2086
    (cd "$(dirname "$f")" && timeout 60 "$irl" $cmd "$(basename "$f")" >"$tmp/out" 2>"$tmp/err"); rc=$?
    out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
    local why=""
    [ "$rc" = "$exp_exit" ] || why+="exit $rc, expected $exp_exit"$'\n'
    [ "$out" = "$exp_out" ] || why+="stdout differs:"$'\n'"$(diff <(printf '%s\n' "$exp_out") <(printf '%s\n' "$out") | head -20)"$'\n'
    if grep -q '// expect-err:' "$f"; then
        local pos=0 want line found n
        while IFS= read -r want; do
            found=0 n=0
            while IFS= read -r line; do
                n=$((n + 1)); [ $n -le $pos ] && continue
                if [[ "$line" == *"$want"* ]]; then found=1; pos=$n; break; fi
            done <<<"$err"
            [ $found = 1 ] || why+="stderr lacks (in order): $want"$'\n'
        done < <(sed -n 's|^.*// expect-err: \{0,1\}||p' "$f")
        [ $found = 1 ] 2>/dev/null || true
    elif [ -n "$err" ]; then
        why+="unexpected stderr:"$'\n'"$err"$'\n'
    fi
    # A crash under the sanitizers always fails, whatever the expected exit.
    if grep -qE 'runtime error:.*(undefined|overflow|misaligned)|AddressSanitizer|LeakSanitizer' "$tmp/err"; then
        why+="sanitizer report:"$'\n'"$(head -20 "$tmp/err")"$'\n'
    fi
    rm -rf "$tmp"
    if [ -z "$why" ]; then pass; else fail "$f [$irl]" "$why"; fi
}

run_lang() { # $1 build dir
    local f
    [ -x "$1/irl" ] || return 0
    while IFS= read -r f; do
        grep -qE '// (expect|exit):' "$f" || continue   # libraries imported by tests carry no directives
        run_lang_file "$(realpath "$1/irl")" "$f"
    done < <(find tests/lang programs -name '*.irl' 2>/dev/null | sort)
}

run_sh() { # $1 build dir
    local s out rc
    for s in tests/sh/*.sh; do
        [ -f "$s" ] || continue
        out=$(IRL=$(realpath "$1/irl") BUILD=$(realpath "$1") timeout 900 bash "$s" 2>&1); rc=$?
        if [ $rc -eq 0 ]; then pass; else fail "$s [$1]" "$(printf '%s\n' "$out" | tail -30)"; fi
    done
}

[ $# -gt 0 ] || set -- build/release
for b in "$@"; do
    echo "== $b"
    run_unit "$b"
    run_lang "$b"
    run_sh "$b"
done
if [ $failed -gt 0 ]; then
    echo "failed:"; printf '  %s\n' "${failures[@]}"
fi
total=$((passed + failed))
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $total -gt 0 ]
