#!/usr/bin/env bash
# Runs every fuzz target for a bounded time each; for CI and by hand.
#
#   fuzz/run.sh [seconds-per-target]      (default 60, or $FUZZ_SECONDS)
#
# Each target is one single-threaded libFuzzer process, so the targets run $FUZZ_JOBS at a time
# (default: one per CPU); every target still gets its full time on a core of its own, and each
# one's log is printed, whole, when it has ended.
#
# Installs the pinned cargo-fuzz when it is missing. Only stable Rust is available, so the
# unstable flags cargo-fuzz passes to rustc (-Zsanitizer=address and friends) are unlocked with
# RUSTC_BOOTSTRAP=1. A crash, panic, hang (-timeout) or memory blow-up (-rss_limit_mb) fails
# the script; the input that did it is in fuzz/artifacts/<target>/. See HARDENING.md.
set -euo pipefail
cd "$(dirname "$0")"

CARGO_FUZZ_VERSION=0.13.1
SECS="${1:-${FUZZ_SECONDS:-60}}"
TARGETS=(decode_decide keywords agent_codex agent_gemini agent_qwen agent_cursor agents_more)

export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

if ! cargo fuzz --version 2>/dev/null | grep -qx "cargo-fuzz $CARGO_FUZZ_VERSION"; then
    echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION"
    # A debug build: cargo-fuzz only drives cargo and libFuzzer, so its own speed is moot, and
    # this compiles in about a third of the time of a release build.
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --debug
fi

# The targets' scratch projects go here (a RAM filesystem when there is one) and go away after.
scratch_base=/dev/shm
[ -d "$scratch_base" ] && [ -w "$scratch_base" ] || scratch_base="${TMPDIR:-/tmp}"
scratch="$(mktemp -d "$scratch_base/omc-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export OMC_FUZZ_SCRATCH="$scratch"

echo "== cargo fuzz build (release, address sanitizer)"
cargo fuzz build -O

JOBS="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
fuzz_one() {
    local t=$1
    mkdir -p "corpus/$t"
    # The target's own stderr (diagnostics of no-op hooks) is closed: -close_fd_mask=2.
    cargo fuzz run -O "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$SECS" \
        -timeout=10 \
        -rss_limit_mb=2048 \
        -max_len=65536 \
        -dict="$PWD/dict/payload.dict" \
        -close_fd_mask=2 \
        -print_final_stats=1
}
for t in "${TARGETS[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
    echo "== fuzzing $t for ${SECS}s"
    (
        if fuzz_one "$t" > "$scratch/$t.log" 2>&1; then rc=0; else rc=$?; fi
        echo "$rc" > "$scratch/$t.rc"
    ) &
done
wait
failed=0
for t in "${TARGETS[@]}"; do
    echo "== $t: its log"
    cat "$scratch/$t.log"
    rc=$(cat "$scratch/$t.rc" 2>/dev/null || echo "no exit status")
    if [ "$rc" != 0 ]; then
        echo "== $t FAILED ($rc): the input that did it is in fuzz/artifacts/$t/"
        failed=$((failed + 1))
    fi
done
[ "$failed" -eq 0 ] || { echo "== fuzzing: $failed of ${#TARGETS[@]} targets failed"; exit 1; }
echo "== fuzzing done: ${#TARGETS[@]} targets, ${SECS}s each, $JOBS at a time, no crash"
