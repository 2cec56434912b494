#!/usr/bin/env bash
# freeflyer_model.sh — the free-floating manipulator through `irl model`: models/freeflyer_vm.irm (Virtual
# Manipulator) and models/freeflyer_dem.irm (Dynamically Equivalent Manipulator) answer mass, bias, id, fd, semi,
# fk and outputs alike to 1e-12, and the DEM's chain twin models/freeflyer_dem_chain.irm (the `chain` back-end's
# Newton-Euler) gives the same mass and bias and, at the base motion the freeflyer derives, the same arm torques
# with zero base torque. A word PARAM (`formulation`) is read, and a wrong word or a missing one is refused.
set -u
. "$(dirname "$0")/model_cli_lib.bash"
tmpd=$(mktemp -d); trap 'rm -rf "$tmpd"' EXIT
fail=0
# (inside $(...) a failure can only show as missing numbers, which same_numbers refuses)
run() { "$IRL" model "$@" || echo "FAIL exit $?: irl model $*" >&2; }
vm=models/freeflyer_vm.irm dem=models/freeflyer_dem.irm chain=models/freeflyer_dem_chain.irm

states=(
    "0,0,0.5|0,0,0|0,0,0"
    "0.3,0.2,-0.4|0.1,1.5,-2|3,-1,4"
    "-2,2.5,1.7|-1,-0.7,0.9|-5,2,0.5"
)
for s in "${states[@]}"; do
    IFS='|' read -r q qd qdd <<<"$s"
    for op in "mass" "bias --qd $qd" "id --qd $qd --qdd $qdd" "fd --qd $qd --tau 0,${qdd#*,}" "fk" "jacobian" \
              "outputs --qd $qd --qdd $qdd" "semi --qd $qd --qdd $qdd --tau 0,0,0"; do
        # shellcheck disable=SC2086
        a=$(run $vm $op --q "$q"); b=$(run $dem $op --q "$q")
        same_numbers "$a" "$b" 1e-12 "VM vs DEM: ${op%% *} at q=$q" || fail=1
    done
    for op in "mass" "bias --qd $qd"; do
        # shellcheck disable=SC2086
        a=$(run $dem $op --q "$q"); b=$(run $chain $op --q "$q")
        same_numbers "$a" "$b" 1e-12 "DEM vs chain: ${op%% *} at q=$q" || fail=1
    done
    # the chain's plain inverse dynamics at the base rate and acceleration the freeflyer derives (its outputs
    # base_rate, base_acc) equals the freeflyer's tau, base torque 0 included
    vals=($(numbers "$(run $vm outputs --q "$q" --qd "$qd" --qdd "$qdd")"))
    rate=${vals[8]:-x} acc=${vals[9]:-x}
    a=$(run $vm id --q "$q" --qd "$qd" --qdd "$qdd")
    b=$(run $chain id --q "$q" --qd "$rate,${qd#*,}" --qdd "$acc,${qdd#*,}")
    same_numbers "$a" "$b" 1e-12 "freeflyer id vs chain id at the derived base motion, q=$q" || fail=1
done

# refused machines: the reader's word PARAM reaches the back-end, which checks it
sed 's/PARAM formulation = VM;/PARAM formulation = vm;/' $vm >"$tmpd/lower.irm"
a=$(run "$tmpd/lower.irm" mass --q 0,0.2,0.3); b=$(run $vm mass --q 0,0.2,0.3)
same_numbers "$a" "$b" 0 "formulation = vm (lower case) is VM" || fail=1
sed 's/PARAM formulation = VM;/PARAM formulation = XYZ;/' $vm >"$tmpd/bad.irm"
# at the PARAM's file:line:col (counted here from the text) with its value
at=$(awk '/PARAM formulation =/ {print NR ":" index($0, "XYZ")}' "$tmpd/bad.irm")
expect_exit 65 "$tmpd/bad.irm:$at: error: freeflyer: parameter 'formulation' = XYZ: must be VM or DEM" \
    "$tmpd/bad.irm" mass --q 0,0,0 || fail=1
sed 's/PARAM formulation = VM;/PARAM formulation = 2;/' $vm >"$tmpd/num.irm"
expect_exit 65 "freeflyer: parameter 'formulation' = 2: must be VM or DEM" "$tmpd/num.irm" mass --q 0,0,0 || fail=1
sed 's/PARAM total_mass = 6 kg;//' $dem >"$tmpd/nomass.irm"
expect_exit 65 "freeflyer: parameter 'total_mass' is missing: required with the DEM formulation (a mass > 0 kg)" \
    "$tmpd/nomass.irm" mass --q 0,0,0 || fail=1
sed 's/gravity = POS(0, 0, 0);/gravity = POS(0, 0, -9.81 m\/s^2);/' $vm >"$tmpd/grav.irm"
expect_exit 65 "gravity must be zero" "$tmpd/grav.irm" mass --q 0,0,0 || fail=1
expect_exit 1 "not supported" $vm ik --pose 1,0,0,1,0,0,0 || fail=1
expect_exit 1 "not supported" $vm singularity --q 0,0,0 || fail=1
exit $fail
