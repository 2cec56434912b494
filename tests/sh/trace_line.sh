#!/usr/bin/env bash
# trace_line.sh — the trace's `line` column names the statement whose motion is executing, not the statement the
# VM has run ahead to: during the first MOVE it is that MOVE's line although the program has already queued the
# second one; during a WAIT with every device at rest it is the WAIT's line.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; exit 1; }
cat >"$tmp/p.irl" <<IRL
PROGRAM trace_line;
  DEVICE arm : CHAIN "$root/models/puma560_cell.irm";
BEGIN
  MOVE PTP JOINT(0.3, 0.9, -3.0, 0, 0.8, 0) WITH APPROX_PTP := 50 %;
  MOVE PTP JOINT(0.6, 0.9, -3.0, 0, 0.8, 0);
  WAIT 0.5 s;
  MOVE PTP JOINT(0.6, 0.8, -3.0, 0, 0.8, 0);
ENDPROGRAM
IRL
"$IRL" run --trace csv --no-plots --out "$tmp/o" "$tmp/p.irl" >/dev/null 2>"$tmp/err" || fail "run failed: $(head -3 "$tmp/err")"
# per line: first and last t at which the trace names it, in order of appearance
awk -F, 'NR > 1 { l = $NF; if (!(l in first)) { first[l] = $1; order[++n] = l } last[l] = $1 }
         END { for (i = 1; i <= n; i++) print order[i], first[order[i]], last[order[i]] }' "$tmp/o/trace.csv" >"$tmp/lines"
seq=$(awk '{ printf "%s ", $1 }' "$tmp/lines")
[ "$seq" = "0 4 5 6 7 " ] || fail "lines in trace order: '$seq', want '0 4 5 6 7 ' (0: cycle 0, before the program runs) ($(tr '\n' ';' <"$tmp/lines"))"
# the WAIT's rows: 0.5 s (+/- one cycle) with q constant
read -r _ w0 w1 <<<"$(awk '$1 == 6' "$tmp/lines")"
awk -v a="$w0" -v b="$w1" 'BEGIN { d = b - a; exit !(d > 0.497 && d < 0.502) }' || fail "WAIT rows span $w0..$w1 s"
moving=$(awk -F, -v a="$w0" -v b="$w1" 'NR > 1 && $1 >= a && $1 <= b && $NF == 6 && ($8 != 0 || $9 != 0) { n++ } END { print n + 0 }' "$tmp/o/trace.csv")
[ "$moving" = 0 ] || fail "$moving rows under the WAIT line have a moving axis"
echo "trace line column: 4 (first move, while 5 is queued), 5, 6 (WAIT, at rest), 7"
