#!/usr/bin/env bash
# Re-record tests/fixtures/claude-code/*.json from the real, pinned Claude Code
# client (see tests/e2e/FINDINGS.md). Offline: the model is the scripted
# server in tests/e2e/server.rs; hooks come from the recorder plugin in
# tests/e2e/recorder/ (record.sh saves every hook payload it is given).
#
#   tests/e2e/record-fixtures.sh [OUT_DIR]     # default tests/fixtures/claude-code
#
# Needs cargo, node + npm (the client is installed once into
# target/e2e-client, or OMC_E2E_CLIENT_DIR). The recorder is an ignored test of
# the integration binary (tests/e2e/recorder/record_fixtures.rs). Payloads
# contain real temp paths, session ids and timestamps-derived values: expect a
# noisy diff after re-recording.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$repo/tests/fixtures/claude-code}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
FIXTURE_OUT="$out" \
OMC_E2E_CLIENT_DIR="${OMC_E2E_CLIENT_DIR:-$repo/target/e2e-client}" \
  cargo test --quiet --manifest-path "$repo/Cargo.toml" --test integration \
  claude_recorder::record_fixtures -- --ignored --exact --nocapture
echo "fixtures written to $out"
