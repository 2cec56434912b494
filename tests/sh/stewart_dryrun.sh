#!/usr/bin/env bash
# tests/sh/stewart_dryrun.sh: the Stewart-platform flight simulator end to end (models/stewart_flightsim.irm).
#   - programs/stewart_flightsim.irl dry-runs clean; from its trace.csv, independently of the back-end and of
#     runtime/exec/checks.c (awk): every leg length recomputed from the pose columns and the paper's anchor layout
#     (eqs. 5-12) equals the L columns; L1dot..L6dot equal central differences of L; the strokes, leg speeds and
#     forces of the machine file hold; the legs' work sum F_i Ldot_i dt up to each rest equals the platform's
#     potential-energy change m g dz_C (the energy balance of the leg forces); two runs give identical files.
#   - programs/stewart_stroke_violation.irl: exactly L1 and L2 violated, blamed on line 11, in report.json.
#   - a LIN to the same out-of-stroke pose raises ERR_IK at its MOVE (the back-end's IK workspace).
#   - irl model on the machine: outputs names, ik out of reach (exit 1), fk/ik round trip, id at rest.
# Needs $IRL.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
note() { echo "FAIL $*"; fail=1; }
M=models/stewart_flightsim.irm

# ---- the clean program ---- (traces with 12 significant digits, --digits 12: leg lengths are checked to 1e-9 m)
for run in a b; do
    (cd programs && "$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/fs.$run" stewart_flightsim.irl >"$tmp/fs.$run.out" 2>"$tmp/fs.$run.err") \
        || note "stewart_flightsim: exit $? ($(head -3 "$tmp/fs.$run.err"))"
done
tr="$tmp/fs.a/trace.csv"
if [ -s "$tr" ]; then
    cmp -s "$tr" "$tmp/fs.b/trace.csv" || note "trace.csv differs between two runs"
    cmp -s "$tmp/fs.a/report.json" "$tmp/fs.b/report.json" || note "report.json differs between two runs"
    msg=$(awk -F, '
        function abs(x) { return x < 0 ? -x : x }
        function bad(s) { print s " at t=" $1; err = 1; exit 1 }
        BEGIN { pi = atan2(0, -1); RB = 1.30; eB = 1.50; rp = 1.38; ep = -0.25; m = 3000; g = 9.81
                cx = 0.10; cy = 0; cz = 0.95
                for (i = 1; i <= 6; i++) {           # eqs. 5-10: lambda = delta = 0, 0, 120, 120, 240, 240 deg
                    lam = int((i - 1) / 2) * 2 * pi / 3; c = cos(lam); s = sin(lam)
                    e = (i % 2 ? -eB : eB); bx[i] = c * RB - s * e; by[i] = s * RB + c * e; bz[i] = 0
                    e = (i % 2 ? ep : -ep); ax[i] = c * rp - s * e; ay[i] = s * rp + c * e; az[i] = 0 } }
        NR == 1 { for (i = 1; i <= NF; i++) { col[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) col[h] = i }; next }
        { n++; t[n] = $1
          x = $(col["sim.q1.x"]); y = $(col["sim.q2.y"]); z = $(col["sim.q3.z"])
          ps = $(col["sim.q4"]); th = $(col["sim.q5"]); ph = $(col["sim.q6"])
          # R = Rz(phi) Ry(theta) Rx(psi)
          r11 = cos(ph)*cos(th); r12 = cos(ph)*sin(th)*sin(ps) - sin(ph)*cos(ps); r13 = cos(ph)*sin(th)*cos(ps) + sin(ph)*sin(ps)
          r21 = sin(ph)*cos(th); r22 = sin(ph)*sin(th)*sin(ps) + cos(ph)*cos(ps); r23 = sin(ph)*sin(th)*cos(ps) - cos(ph)*sin(ps)
          r31 = -sin(th);        r32 = cos(th)*sin(ps);                         r33 = cos(th)*cos(ps)
          P = 0; rest = 1
          for (k = 1; k <= 6; k++) if ($(col["sim.qd" k]) != 0 || $(col["sim.qdd" k]) != 0) rest = 0
          for (i = 1; i <= 6; i++) {
              lx = x + r11*ax[i] + r12*ay[i] + r13*az[i] - bx[i]
              ly = y + r21*ax[i] + r22*ay[i] + r23*az[i] - by[i]
              lz = z + r31*ax[i] + r32*ay[i] + r33*az[i] - bz[i]
              L = sqrt(lx*lx + ly*ly + lz*lz); Lc = $(col["sim.L" i])
              if (abs(L - Lc) > 1e-9) bad("L" i " " Lc " != " L " from the pose")
              if (Lc < 1.90 || Lc > 2.90) bad("L" i " " Lc " outside the stroke")
              v = $(col["sim.L" i "dot"]); f = $(col["sim.F" i])
              if (abs(v) > 0.9) bad("L" i "dot " v)
              if (abs(f) > 25000) bad("F" i " " f)
              Lh[n, i] = Lc; Vh[n, i] = v; P += f * v }
          # the work of the legs (trapezoid) against the potential energy of the mass centre, at each rest
          if (n > 1) W += 0.5 * (P + Pprev) * (t[n] - t[n - 1])
          Pabs += abs(P) * (n > 1 ? t[n] - t[n - 1] : 0); Pprev = P
          zc = z + r31*cx + r32*cy + r33*cz
          if (n == 1) zc0 = zc
          if (rest && n > 1) { nrest++; d = W - m * g * (zc - zc0); if (abs(d) > dmax) dmax = abs(d) } }
        END { if (err) exit 1
              for (k = 2; k < n; k++) for (i = 1; i <= 6; i++) {   # leg speeds vs differences of the lengths
                  dd = (Lh[k + 1, i] - Lh[k - 1, i]) / (t[k + 1] - t[k - 1])
                  if (abs(dd - Vh[k, i]) > 1e-4 + 1e-3 * abs(dd)) { print "L" i "dot " Vh[k, i] " != dL/dt " dd " at t=" t[k]; exit 1 } }
              if (nrest < 100) { print "only " nrest " rest cycles"; exit 1 }
              if (dmax > 1e-5 * Pabs) { print "work vs potential energy: " dmax " J off (of " Pabs " J moved)"; exit 1 }
              printf "rows %d, rests %d, energy balance within %.3g J of %.3g J\n", n, nrest, dmax, Pabs }' "$tr") \
        || note "stewart_flightsim trace: $msg"
    echo "# stewart_flightsim: $msg"
    grep -q '"verdict": "pass"' "$tmp/fs.a/report.json" || note "stewart_flightsim: verdict is not pass"
else
    note "stewart_flightsim: no trace"
fi

# ---- the stroke violation ----
(cd programs && "$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/sv" stewart_stroke_violation.irl >/dev/null 2>"$tmp/sv.err"); rc=$?
[ $rc = 1 ] || note "stewart_stroke_violation: exit $rc, expected 1"
python3 - "$tmp/sv/report.json" <<'EOF' || note "stewart_stroke_violation: report.json"
import json, sys
r = json.load(open(sys.argv[1]))
v = r["violations"]
names = sorted(x["name"] for x in v)
assert names == ["L1", "L2"], names
for x in v:
    assert x["line"] == 11 and x["quantity"] == "output", x
    assert abs(x["value"] - 2.936689) < 1e-6 and x["limit"] == 2.9, x
EOF

# ---- a LIN beyond the strokes is refused at its MOVE ----
cat >"$tmp/lin.irl" <<EOF
PROGRAM lin_out;
  DEVICE sim : STEWART "$PWD/$M";
BEGIN
  MOVE sim LIN POSE(POS(0 m, 0 m, 2.30 m), ORIZYX(0 deg, -15 deg, 0 deg));
  PRINT "moved";
ON ERROR
  IF ERRNO = ERR_IK THEN PRINT "ERR_IK"; ENDIF;
ENDERROR
ENDPROGRAM
EOF
out=$("$IRL" run --trace csv --digits 12 --no-plots --out "$tmp/lin" "$tmp/lin.irl" 2>&1)
[ "$out" = "ERR_IK" ] || note "LIN out of stroke: '$out'"

# ---- irl model ----
out=$("$IRL" model $M outputs --q 0,0,2.05,0,0,0)
[[ "$out" == '{"names": ["L1", "L2", "L3", "L4", "L5", "L6", "L1dot", "L2dot", "L3dot", "L4dot", "L5dot", "L6dot", "F1", "F2", "F3", "F4", "F5", "F6"]'* ]] \
    || note "outputs: $out"
err=$("$IRL" model $M ik --pose 0,0,2.7,1,0,0,0 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && [[ "$err" == *"out of reach"* ]] || note "ik beyond the stroke: exit $rc, '$err'"
out=$("$IRL" model $M ik --pose 0.1,-0.2,2.1,0.9990482215818578,0.043619387365336,0,0)   # roll 5 deg
python3 - "$out" <<'EOF' || note "ik: $out"
import json, math, sys
q = json.loads(sys.argv[1])["q"]
want = [0.1, -0.2, 2.1, math.radians(5), 0, 0]
assert max(abs(a - b) for a, b in zip(q, want)) < 1e-12, q
EOF
out=$("$IRL" model $M id --q 0,0,2.05,0,0,0)
[ "$out" = '{"tau": [0, 0, 29430, 0, -2943, 0]}' ] || note "id at rest: $out (want m g on z and -m g x_c on pitch)"

[ $fail = 0 ] && echo "ok stewart_dryrun"
exit $fail
