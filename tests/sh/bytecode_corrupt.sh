#!/usr/bin/env bash
# tests/sh/bytecode_corrupt.sh: damaged .irlc files never crash, hang or read out of bounds.
#   1. Real .irlc files with random bytes flipped or cut at a random length (fixed seed), run by `irl run`: each
#      must end with exit 65 and one message (the checksum covers every byte, so no flip can pass).
#   2. The same with the checksum re-stamped after mutating (test_bytecode's `mutate` mode, in memory, many
#      more mutants), so the verifier itself must reject them; the mutants it accepts are run by `irl run`
#      under a timeout and must end normally (any exit status but a signal, a sanitizer report or a hang
#      past the timeout is acceptable there: a re-targeted jump can make a legitimate endless loop).
# Needs $IRL and $BUILD. Fewer mutations under ASan ($BUILD ending in asan) to stay near two minutes.
set -u
cd "$(dirname "$0")/../.."
: "${IRL:?set IRL}" "${BUILD:?set BUILD}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
case "$BUILD" in *asan) flips=400 mem=20000 ;; *) flips=3000 mem=200000 ;; esac
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
sanitizer() { grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:.*(undefined|overflow|misaligned|out of bounds|null pointer)' "$1"; }

# Real files: every program that compiles, the largest few first (more sections, more code to damage).
k=0
while IFS= read -r f; do
    (cd "$(dirname "$f")" && "$IRL" compile "$(basename "$f")" -o "$tmp/src$k.irlc" >/dev/null 2>&1) || continue
    k=$((k + 1))
done < <(find tests/lang programs -name '*.irl' 2>/dev/null | xargs -r ls -S 2>/dev/null | head -8)
[ $k -gt 0 ] || { echo "no .irlc could be compiled: nothing to corrupt"; exit 1; }
echo "corrupting $k files: $flips flips/cuts via irl run, $mem re-stamped mutants in memory"

# 1. Flip or truncate (test_bytecode writes the damaged copies), then `irl run` each.
mkdir -p "$tmp/flips"
for ((s = 0; s < k; s++)); do
    "$BUILD/tests/test_bytecode" flips "$tmp/src$s.irlc" $((s + 1)) $((flips / k + 1)) "$tmp/flips" ||
        bad "test_bytecode flips src$s failed"
done
i=0
for m in "$tmp"/flips/*.irlc; do
    i=$((i + 1))
    timeout 20 "$IRL" run "$m" >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
    if [ $rc -ne 65 ] || sanitizer "$tmp/err" || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
        bad "$(basename "$m"): exit $rc, stderr: $(head -3 "$tmp/err")"
        [ $fail -gt 10 ] && break
    fi
done
echo "ran $i flipped or cut files"

# 2. Mutate, re-stamp the checksum, verify in memory; run what the verifier accepts.
mkdir -p "$tmp/acc"
for ((s = 0; s < k; s++)); do
    out=$("$BUILD/tests/test_bytecode" mutate "$tmp/src$s.irlc" $((s + 1)) $((mem / k)) "$tmp/acc" 2>&1); rc=$?
    echo "  src$s: $out" | tail -1
    [ $rc -eq 0 ] || bad "test_bytecode mutate src$s: exit $rc: $(printf '%s\n' "$out" | tail -5)"
done
n=0
for m in "$tmp"/acc/*.irlc; do
    [ -f "$m" ] || continue
    n=$((n + 1))
    timeout 3 "$IRL" run "$m" >/dev/null 2>"$tmp/err" </dev/null; rc=$?
    if [ $rc -gt 128 ] || [ $rc -eq 125 ] || [ $rc -eq 126 ] || sanitizer "$tmp/err"; then
        bad "accepted mutant $m: exit $rc: $(head -3 "$tmp/err")"
        [ $fail -gt 20 ] && break
    fi
done
echo "ran $n accepted mutants; $fail failures"
[ $fail -eq 0 ]
