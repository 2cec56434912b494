#!/usr/bin/env bash
# tests/sh/bytecode_corrupt.sh [--campaign]: damaged .irlc files never crash, hang or read out of bounds.
#   1. Real .irlc files damaged in each region (header, checksum, constants, code, line table, or cut short; a
#      fixed seed, 96 files from two programs), run by `irl run`: each must end with exit 65 and one message (the
#      checksum covers every byte, so no flip can pass).
#   2. The same with the checksum re-stamped after mutating (test_bytecode's `mutate` mode, in memory, many
#      more mutants), so the verifier itself must reject them; a few mutants it accepts are run by `irl run`
#      under a timeout and must end normally (any exit status but a signal, a sanitizer report or a hang
#      past the timeout is acceptable there: a re-targeted jump can make a legitimate endless loop).
# --campaign (`make fuzz-bytecode`, part of `make fuzz`) adds 3000 random flips or cuts over eight programs, 200,000
# re-stamped mutants and runs every accepted one written (up to 25 a program): minutes, not for the default suite.
# Needs $IRL and $BUILD. Fewer mutants under ASan ($BUILD ending in asan).
set -u
cd "$(dirname "$0")/../.."
: "${IRL:?set IRL}" "${BUILD:?set BUILD}"
campaign=0; [ "${1:-}" = --campaign ] && campaign=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
per=8   # files per region and program: 2 programs x 6 regions x 8 = 96
if [ $campaign = 1 ]; then
    case "$BUILD" in *asan) flips=400 mem=20000 ;; *) flips=3000 mem=200000 ;; esac
    runs=1000 secs=3
else
    case "$BUILD" in *asan) mem=5000 ;; *) mem=20000 ;; esac
    flips=0 runs=8 secs=2
fi
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
sanitizer() { grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:.*(undefined|overflow|misaligned|out of bounds|null pointer)' "$1"; }

# Real files: every program that compiles, the largest few first (more sections, more code to damage).
k=0
while IFS= read -r f; do
    (cd "$(dirname "$f")" && "$IRL" compile "$(basename "$f")" -o "$tmp/src$k.irlc" >/dev/null 2>&1) || continue
    k=$((k + 1))
done < <(find tests/lang programs -name '*.irl' 2>/dev/null | xargs -r ls -S 2>/dev/null | head -8)
[ $k -gt 1 ] || { echo "fewer than two .irlc could be compiled: nothing to corrupt"; exit 1; }

# 1. Damage each region of the two largest (test_bytecode writes the copies), and with --campaign flip or cut
#    anywhere in all of them; then `irl run` each.
mkdir -p "$tmp/flips"
for ((s = 0; s < 2; s++)); do
    "$BUILD/tests/test_bytecode" regions "$tmp/src$s.irlc" $((s + 1)) $per "$tmp/flips" >"$tmp/regions" ||
        bad "test_bytecode regions src$s failed"
    echo "src$s: $(tr '\n' ' ' <"$tmp/regions")"
done
if [ "$flips" -gt 0 ]; then
    for ((s = 0; s < k; s++)); do
        "$BUILD/tests/test_bytecode" flips "$tmp/src$s.irlc" $((s + 1)) $((flips / k + 1)) "$tmp/flips" ||
            bad "test_bytecode flips src$s failed"
    done
fi
i=0
for m in "$tmp"/flips/*.irlc; do
    i=$((i + 1))
    timeout 20 "$IRL" run --out-temp --no-plots "$m" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    if [ $rc -ne 65 ] || sanitizer "$tmp/err" || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        bad "$(basename "$m"): exit $rc, stderr: $(head -3 "$tmp/err")"
        [ $fail -gt 10 ] && break
    fi
done
[ $i -ge $((2 * 6 * per)) ] || bad "only $i damaged files ran"
echo "ran $i damaged files"

# 2. Mutate, re-stamp the checksum, verify in memory; run (some of) what the verifier accepts.
mkdir -p "$tmp/acc"
for ((s = 0; s < k; s++)); do
    out=$("$BUILD/tests/test_bytecode" mutate "$tmp/src$s.irlc" $((s + 1)) $((mem / k)) "$tmp/acc" 2>&1); rc=$?
    echo "  src$s: $out" | tail -1
    [ $rc -eq 0 ] || bad "test_bytecode mutate src$s: exit $rc: $(printf '%s\n' "$out" | tail -5)"
done
n=0
for m in "$tmp"/acc/*.irlc; do
    [ -f "$m" ] && [ $n -lt $runs ] || continue
    n=$((n + 1))
    timeout $secs "$IRL" run --out-temp --no-plots "$m" >/dev/null 2>"$tmp/err" </dev/null; rc=$?
    if [ $rc -gt 128 ] || [ $rc -eq 125 ] || [ $rc -eq 126 ] || sanitizer "$tmp/err"; then
        bad "accepted mutant $m: exit $rc: $(head -3 "$tmp/err")"
        [ $fail -gt 20 ] && break
    fi
done
echo "ran $n accepted mutants; $fail failures"
[ $fail -eq 0 ]
