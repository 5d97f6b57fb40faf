#!/usr/bin/env bash
# Runs every fuzz target for a bounded time each; for CI and by hand.
#
#   fuzz/run.sh [seconds-per-target]      (default 60, or $FUZZ_SECONDS)
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
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi

# The targets' scratch projects go here (a RAM filesystem when there is one) and go away after.
scratch_base=/dev/shm
[ -d "$scratch_base" ] && [ -w "$scratch_base" ] || scratch_base="${TMPDIR:-/tmp}"
scratch="$(mktemp -d "$scratch_base/omc-fuzz.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
export OMC_FUZZ_SCRATCH="$scratch"

echo "== cargo fuzz build (release, address sanitizer)"
cargo fuzz build -O

for t in "${TARGETS[@]}"; do
    echo "== fuzzing $t for ${SECS}s"
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
done
echo "== fuzzing done: ${#TARGETS[@]} targets, ${SECS}s each, no crash"
