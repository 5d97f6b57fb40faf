#!/usr/bin/env bash
# Re-record tests/fixtures/claude-code/*.json from the real, pinned Claude Code
# client (see tests/e2e/FINDINGS.md). Offline: the model is the scripted
# server in tests/e2e/server.rs; hooks come from the recorder plugin in
# tests/e2e/recorder/ (record.sh saves every hook payload it is given).
#
#   tests/e2e/record-fixtures.sh [OUT_DIR]     # default tests/fixtures/claude-code
#
# Needs cargo, node + npm (the client is installed once into
# target/e2e-client, or OMC_E2E_CLIENT_DIR). It builds a throw-away cargo
# project that includes tests/e2e/mod.rs and
# tests/e2e/recorder/record_fixtures.rs, so it does not depend on the repo's
# own test targets. Payloads contain real temp paths, session ids and
# timestamps-derived values: expect a noisy diff after re-recording.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$repo/tests/fixtures/claude-code}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/omc-record-fixtures.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/tests"
: > "$work/src/lib.rs"
cat > "$work/Cargo.toml" <<EOF
[package]
name = "omc-record-fixtures"
version = "0.0.0"
edition = "2024"
publish = false

[dev-dependencies]
serde_json = "1"
EOF
cat > "$work/tests/record.rs" <<EOF
#[path = "$repo/tests/e2e/mod.rs"]
mod e2e;
include!("$repo/tests/e2e/recorder/record_fixtures.rs");
EOF
FIXTURE_OUT="$out" \
RECORDER_DIR="$repo/tests/e2e/recorder" \
OMC_E2E_CLIENT_DIR="${OMC_E2E_CLIENT_DIR:-$repo/target/e2e-client}" \
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/record-fixtures}" \
  cargo test --quiet --manifest-path "$work/Cargo.toml" --test record -- --nocapture
echo "fixtures written to $out"
