# model_cli_lib.bash — helpers sourced by tests/sh/model_cli_*.sh (named .bash so tests/run.sh, which runs
# tests/sh/*.sh, does not take it for a test).

# numbers TEXT: every JSON number of TEXT, one per line (keys hold no digits in irl model's answers).
numbers() { printf '%s\n' "$1" | grep -oE -- '-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'; }

# same_numbers A B TOL LABEL: A and B hold the same count of numbers, pairwise |a-b| <= TOL*max(1,|a|,|b|).
same_numbers() {
    local na nb
    na=$(numbers "$1" | wc -l); nb=$(numbers "$2" | wc -l)
    if [ "$na" != "$nb" ] || [ "$na" = 0 ]; then
        echo "FAIL $4: $na numbers vs $nb"; echo "  $1"; echo "  $2"; return 1
    fi
    paste <(numbers "$1") <(numbers "$2") | awk -v tol="$3" -v label="$4" '
        function abs(x) { return x < 0 ? -x : x }
        { s = abs($1); if (abs($2) > s) s = abs($2); if (s < 1) s = 1
          d = abs($1 - $2) / s; if (d > worst) worst = d
          if (d > tol) { bad++; if (bad < 4) printf "FAIL %s: item %d: %s vs %s (rel %.3g > %g)\n", label, NR, $1, $2, d, tol } }
        END { if (bad) exit 1; printf "ok %s (worst %.2g)\n", label, worst }'
}

# expect_exit CODE STDERR_SUBSTRING ARGS...: irl model ARGS exits CODE, prints nothing on stdout, and its stderr
# contains the substring; no sanitizer report, no signal.
expect_exit() {
    local want=$1 msg=$2 out err rc
    shift 2
    out=$("$IRL" model "$@" 2>"$tmpd/err"); rc=$?
    err=$(cat "$tmpd/err")
    if [ "$rc" != "$want" ]; then echo "FAIL exit $rc, expected $want: irl model $*"; echo "$err" | head -5; return 1; fi
    if [ -n "$out" ]; then echo "FAIL stdout not empty on error: irl model $*"; echo "$out" | head -3; return 1; fi
    if [[ "$err" != *"$msg"* ]]; then echo "FAIL stderr lacks '$msg': irl model $*"; echo "$err" | head -5; return 1; fi
    if grep -qE 'Sanitizer|runtime error:' <<<"$err"; then echo "FAIL sanitizer: irl model $*"; echo "$err" | head; return 1; fi
    return 0
}
