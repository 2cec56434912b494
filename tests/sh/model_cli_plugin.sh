#!/usr/bin/env bash
# model_cli_plugin.sh — `irl model --plugin lib.so`: the example pendulum back-end (tests/plugin/example_plugin.c,
# built into $BUILD/plugin/) answers tests/plugin/pendulum.irm with its closed form and like the built-in chain on
# the same file; without the plugin, or with a broken one, the errors are clear (65/66), never a crash.
set -u
. "$(dirname "$0")/model_cli_lib.bash"
tmpd=$(mktemp -d); trap 'rm -rf "$tmpd"' EXIT
fail=0
so="$BUILD/plugin/example_plugin.so"
[ -f "$so" ] || { echo "FAIL missing $so (make builds it)"; exit 1; }
M=tests/plugin/pendulum.irm
sed 's/: PENDULUM;/: CHAIN;/' "$M" >"$tmpd/pendulum_chain.irm"

expect_exit 65 "unknown model back-end 'pendulum'" $M info || fail=1
expect_exit 65 "--plugin" $M info || fail=1
expect_exit 66 "cannot open plugin" $M info --plugin "$tmpd/none.so" || fail=1
expect_exit 65 "does not export irl_model_plugin()" $M info --plugin "$BUILD/plugin/example_plugin_noentry.so" || fail=1
expect_exit 65 "incomplete ModelType" $M info --plugin "$BUILD/plugin/example_plugin_incomplete.so" || fail=1
expect_exit 65 "a model plugin named 'pendulum' is loaded already" $M info --plugin "$so" --plugin "$so" || fail=1
expect_exit 65 "cannot load plugin" $M info --plugin "$M" || fail=1
expect_exit 1 "ik: operation not supported by this model back-end (back-end 'pendulum')" \
    $M ik --pose 0,0,-0.5,1,0,0,0 --plugin "$so" || fail=1
expect_exit 64 "--q has 2 numbers, machine 'pend' has 1 joint" $M id --q 1,2 --plugin "$so" || fail=1

# A bare file name is a file in the current directory (not a dlopen library-path search).
(cd "$BUILD/plugin" && "$IRL" model --plugin example_plugin.so "$OLDPWD/$M" info >/dev/null) \
    || { echo "FAIL --plugin example_plugin.so from its own directory"; fail=1; }
info=$("$IRL" model --plugin "$so" $M info) || { echo "FAIL info"; fail=1; }
[[ "$info" == '{"name": "pend", "backend": "pendulum", "dof": 1, "joints": [{"name": "swing", "type": "revolute", "min": null, "max": null, "vmax": null, "amax": null, "jmax": null, "effort": null}]}' ]] \
    || { echo "FAIL info: $info"; fail=1; }
out=$("$IRL" model $M outputs --q 1.0471975511965976 --plugin "$so")
same_numbers "$out" '{"names": ["height"], "values": [0.25]}' 1e-15 "outputs: height l (1 - cos 60 deg) = 0.25" || fail=1
[[ "$out" == '{"names": ["height"], "values": '* ]] || { echo "FAIL outputs names: $out"; fail=1; }

# Closed form tau = (m l^2 + Iyy) qdd + m g l sin q, m = 2 kg, l = 0.5 m, Iyy = 0.1 kg m^2, g = 9.81.
for s in "0.3 0 1.5" "-2.0 4 -3" "3.0 -1 0"; do
    read -r q qd qdd <<<"$s"
    want=$(awk -v q="$q" -v a="$qdd" 'BEGIN { printf "%.17g", (2 * 0.25 + 0.1) * a + 2 * 9.81 * 0.5 * sin(q) }')
    got=$("$IRL" model --plugin "$so" $M id --q "$q" --qd "$qd" --qdd "$qdd")
    same_numbers "$got" "{\"tau\": [$want]}" 1e-12 "pendulum id at q=$q qdd=$qdd against the closed form" || fail=1
    for op in "id --qd $qd --qdd $qdd" "mass" "bias --qd $qd" "fk" "jacobian" "fd --qd $qd --tau 1.5"; do
        # shellcheck disable=SC2086
        a=$("$IRL" model --plugin "$so" $M $op --q "$q"); b=$("$IRL" model "$tmpd/pendulum_chain.irm" $op --q "$q")
        same_numbers "$a" "$b" 1e-12 "plugin vs chain: ${op%% *} at q=$q" || fail=1
    done
done
exit $fail
