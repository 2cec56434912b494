#!/usr/bin/env bash
# follow_trace.sh — MOVE FOLLOW's setpoint stream against independent computations: tests/lang/follow/table.irl
# (an ARRAY table) and csv.irl (the same table from data/path.csv) give the same trace while they follow it; its
# axis 1 (q, q̇, q̈ at every cycle of its 2 s) is scipy's clamped cubic spline of the table (zero speed at both
# ends), shifted to start where the FOLLOW starts; fn.irl's axis 1 is 0.2 sin(2 (t − 0.5)) with its exact
# derivatives from t = 0.5 s to 2 s; the table runs online (sim driver) with the dry-run's trace. Needs $IRL.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PY=""
for p in python3 /usr/bin/python3; do "$p" -c 'import numpy, scipy' 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || fail "no python3 with numpy and scipy (install python3-scipy)"
for p in table csv fn; do
    (cd tests/lang/follow && "$IRL" run --trace csv --no-plots --no-html --out "$tmp/$p" $p.irl) >"$tmp/$p.out" 2>&1 ||
        fail "$p.irl: $(cat "$tmp/$p.out")"
done
# the first 2001 rows (t = 0 .. 2 s: the FOLLOW) of both traces, every column but the statement's line (the CSV
# writes 45 deg with 15 digits: the pose differs in the last bits)
paste -d, <(head -2002 "$tmp/table/trace.csv") <(head -2002 "$tmp/csv/trace.csv") | awk -F, '
    NR == 1 { n = NF / 2; next }
    { for (i = 1; i < n; i++) { d = $i - $(i + n); if (d < 0) d = -d; if (d > w) w = d } }
    END { printf "table vs CSV: max |difference| %.3g\n", w; exit !(w < 1e-9) }' ||
    fail "the ARRAY table and the CSV file give different traces"
"$PY" - "$tmp" <<'PY' || fail "the setpoints differ from the independent computation"
import csv, sys
import numpy as np
from scipy.interpolate import CubicSpline
def trace(path):
    rows = list(csv.reader(open(path)))
    col = {h: i for i, h in enumerate(rows[0])}
    return np.array([[float(r[col[c]]) for c in ("t", "arm.q1.j1", "arm.qd1.j1", "arm.qdd1.j1")] for r in rows[1:]])
bad = 0
def compare(name, tr, mask, q, qd, qdd):
    global bad
    t = tr[mask, 0]
    for k, (f, unit) in enumerate(((q, "rad"), (qd, "rad/s"), (qdd, "rad/s^2"))):
        d = np.max(np.abs(tr[mask, 1 + k] - f(t)))
        print(f"{name}: {('q', 'qd', 'qdd')[k]} max |irl - reference| {d:.3g} {unit} over {t.size} cycles")
        bad |= not d < 1e-9
tr = trace(sys.argv[1] + "/table/trace.csv")
u = np.arange(21) / 20.0
s = CubicSpline(2 + 0.1 * np.arange(21), 0.1 * u ** 3 * (10 - 15 * u + 6 * u * u), bc_type="clamped")
m = (tr[:, 0] > 0) & (tr[:, 0] <= 2 + 1e-9)
compare("table", tr, m, lambda t: s(t + 2), lambda t: s(t + 2, 1), lambda t: s(t + 2, 2))
if int(m.sum()) != 2000: print("table: not 2000 cycles"); bad = 1
tr = trace(sys.argv[1] + "/fn/trace.csv")
m = (tr[:, 0] > 0.5 + 1e-9) & (tr[:, 0] <= 2 + 1e-9)
compare("function", tr, m, lambda t: 0.2 * np.sin(2 * (t - 0.5)), lambda t: 0.4 * np.cos(2 * (t - 0.5)),
        lambda t: -0.8 * np.sin(2 * (t - 0.5)))
if int(m.sum()) != 1500: print("function: not 1500 cycles"); bad = 1
sys.exit(1 if bad else 0)
PY
grep -q 'fn.irl:22:3: note: arm MOVE FOLLOW starts moving from rest: axis 1 at 22.92 deg/s' "$tmp/fn/report.txt" ||
    fail "the report does not note the FOLLOW that starts moving"
grep -q 'fn.irl:22:3: note: arm MOVE FOLLOW ends moving (the setpoint then holds its last position): axis 1 at -22.69 deg/s' \
    "$tmp/fn/report.txt" || fail "the report does not note the FOLLOW that ends moving"
grep -q '^verdict: PASS' "$tmp/table/report.txt" || fail "the table's run does not pass its checks"
grep -q 'note:' "$tmp/table/report.txt" && fail "the table (at rest at both ends) gets a note"
# online (sim driver): the same stream as the dry-run, byte for byte, and no monitor objects (at rest at both ends)
(cd tests/lang/follow && "$IRL" run --trace csv --online --max-missed 1000000 --driver sim --queue 500 --no-plots --no-html --out "$tmp/on" table.irl) \
    >"$tmp/on.out" 2>&1 || fail "online: $(cat "$tmp/on.out")"
cmp -s "$tmp/table/trace.csv" "$tmp/on/trace.csv" || fail "the online trace differs from the dry-run's"
exit 0
