#!/usr/bin/env bash
# freeflyer_pd.sh — programs/freeflyer_pd.irl (seed 004's computed-torque PD experiment) run closed loop on both
# formulations of the free-floating manipulator: the Virtual Manipulator and the Dynamically Equivalent
# Manipulator give the same trace; the arm tracks its setpoint; the base's actual angle (qa1) is what the
# conservation of angular momentum makes it, by the paper's corrected Appendix A integrated along the arm's actual
# path (an independent computation: closed forms in awk); the setpoint follows the paper's circle (0.25 s late)
# and the base turns as it would on the exact circle. Needs $IRL.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

prog=programs/freeflyer_pd.irl
(cd programs && "$IRL" run --trace csv --digits 12 --no-plots --closed-loop --out "$tmp/vm" freeflyer_pd.irl) >"$tmp/vm.out" 2>&1 ||
    fail "VM run: $(cat "$tmp/vm.out")"
(cd programs && "$IRL" run --trace csv --digits 12 --no-plots --closed-loop --device ff=../models/freeflyer_dem.irm --out "$tmp/dem" \
    freeflyer_pd.irl) >"$tmp/dem.out" 2>&1 || fail "DEM run: $(cat "$tmp/dem.out")"
grep -q '^verdict: PASS' "$tmp/vm/report.txt" || fail "VM run does not pass its checks"
grep -Eq '^  axis 1( \([a-z_0-9]+\))?, passive, not driven: peak \|setpoint - actual\| [0-9.e+-]+ deg at ' "$tmp/vm/report.txt" ||
    fail "the report does not call the base axis passive"

# 1. VM and DEM: every column of the two traces (12 significant digits in the file: --digits 12)
paste -d, "$tmp/vm/trace.csv" "$tmp/dem/trace.csv" | awk -F, '
    NR == 1 { n = NF / 2; next }
    { for (i = 2; i <= n; i++) { d = $i - $(i + n); if (d < 0) d = -d; if (d > w) { w = d; wc = i } } }
    END { printf "VM vs DEM traces: max |difference| %.3g (column %d)\n", w, wc; exit !(w < 1e-9) }' ||
    fail "VM and DEM traces differ"

# 2-5 on the VM trace, columns by name. The loop starts where theta1 leaves 0 (the first move keeps it at 0).
awk -F, '
    function col(name) { return $(c[name]) }
    # Appendix A (ERRATA: a = 1/3, 7/8, 5/24, 1/2, 1/6, 3/8; I = 0.4, 0.1, 0.1): the base rate per arm rate at
    # zero angular momentum, f_k = M_0k / M_00
    function rates(t1, t2) {
        c1 = cos(t1); c2 = cos(t2); c12 = cos(t1 + t2)
        m00 = 1/3 + 7/8 + 5/24 + 2 * 0.5 * c1 + 2 / 6 * c12 + 2 * 3/8 * c2 + 0.6
        f1 = (7/8 + 5/24 + 0.5 * c1 + c12 / 6 + 2 * 3/8 * c2 + 0.2) / m00
        f2 = (5/24 + c12 / 6 + 3/8 * c2 + 0.1) / m00
    }
    NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; h = $i; if (sub(/\.[^.]*$/, "", h) && h ~ /[0-9]$/) c[h] = i }; next }
    {
        t = col("t"); a = col("ff.qa1.alpha"); x = col("ff.qa2.shoulder"); y = col("ff.qa3.elbow")
        e = col("ff.e2.shoulder"); if (e < 0) e = -e; if (e > emax) emax = e
        e = col("ff.e3.elbow"); if (e < 0) e = -e; if (e > emax) emax = e
        # 3. integrate dalpha = -(f1 dtheta1 + f2 dtheta2) along the actual arm path (midpoint rule)
        if (NR == 2) ref = a
        else { rates((x + px) / 2, (y + py) / 2); ref -= f1 * (x - px) + f2 * (y - py) }
        d = a - ref; if (d < 0) d = -d; if (d > wmom) wmom = d
        amin = (NR == 2 || a < amin) ? a : amin; amax = (NR == 2 || a > amax) ? a : amax
        # 4. during the loop, after the 0.5 s run-up: the setpoint against the paper circle, 0.25 s late, and
        # 5. the base against the base on the exact circle (started together at tau = 0.6 s)
        if (col("ff.q2.shoulder") == 0) { t0 = t; next_row(); next }
        if (t0 != "") {
            tau = t - t0; ps = 3.141592653589793 * (tau - 0.25)
            s1 = 0.5 * sin(ps); s2 = 0.5 * cos(ps)
            if (tau >= 0.6 && tau <= 4.4) {
                d = col("ff.q2.shoulder") - s1; if (d < 0) d = -d; if (d > wpath) wpath = d
                d = col("ff.q3.elbow") - s2; if (d < 0) d = -d; if (d > wpath) wpath = d
                if (sref == "") sref = a
                else { rates((s1 + ps1) / 2, (s2 + ps2) / 2); sref -= f1 * (s1 - ps1) + f2 * (s2 - ps2) }
                d = a - sref; if (d < 0) d = -d; if (d > wbase) wbase = d
                bmin = (bmin == "" || sref < bmin) ? sref : bmin; bmax = (bmax == "" || sref > bmax) ? sref : bmax
            }
            ps1 = s1; ps2 = s2
        }
        next_row()
    }
    function next_row() { px = x; py = y; last_e2 = col("ff.e2.shoulder"); last_e3 = col("ff.e3.elbow") }
    END {
        printf "arm tracking error: peak %.3g rad, at the end %.3g, %.3g rad\n", emax, last_e2, last_e3
        printf "base angle (qa1) vs Appendix A integrated along the actual arm path: %.3g rad\n", wmom
        printf "setpoint vs the paper circle (0.25 s late), tau 0.6 .. 4.4 s: %.3g rad\n", wpath
        printf "base angle vs the base on the exact circle: %.3g rad (exact circle swings %.4f .. %.4f rad; " \
               "the run %.4f .. %.4f rad)\n", wbase, bmin, bmax, amin, amax
        exit !(emax < 1e-3 && wmom < 1e-6 && wpath < 0.015 && wbase < 0.02)
    }' "$tmp/vm/trace.csv" || fail "tracking, momentum or path check"
echo "ok"
