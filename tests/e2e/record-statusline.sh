#!/usr/bin/env bash
# Re-record tests/fixtures/claude-code/statusline-*.json from the real, pinned Claude Code
# client (see tests/e2e/FINDINGS.md §12). The status line only runs in the interactive UI, so
# this runs the e2e test that drives the client in a tmux pane (tests/e2e_statusline.rs) and
# lets it save the payloads it saw: at start-up (no context figure yet), during a ralph run,
# and at 91 % context.
#
#   tests/e2e/record-statusline.sh [OUT_DIR]     # default tests/fixtures/claude-code
#
# Needs cargo, tmux, node + npm (the client is installed once into target/e2e-client, or
# OMC_E2E_CLIENT_DIR). Payloads keep the real temp paths and ids; tests/statusline.rs reads
# them, so re-run it afterwards.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$repo/tests/fixtures/claude-code}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$repo"
OMC_E2E_STATUSLINE_OUT="$out" \
  cargo test --release --test integration e2e_statusline -- --nocapture
echo "status line payloads written to $out"
