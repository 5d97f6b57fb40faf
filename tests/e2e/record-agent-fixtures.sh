#!/usr/bin/env bash
# Re-record tests/fixtures/{codex,gemini,qwen,copilot,factory,codebuddy,kimi,cline,opencode,kilo,pi}/*.json
# from the real, pinned Codex CLI, Gemini CLI, Qwen Code, GitHub Copilot CLI, Factory Droid,
# CodeBuddy, Kimi CLI, Cline, OpenCode, Kilo Code and Pi clients (see tests/e2e/FINDINGS.md).
# Offline: the model is the scripted server in tests/e2e/model.rs; the only hook is
# tests/e2e/recorder/record.sh on every event the client fires (it saves each stdin payload);
# for OpenCode, Kilo Code and Pi our plugin runs it in place of the binary.
#
#   tests/e2e/record-agent-fixtures.sh [codex|gemini|qwen|copilot|factory|codebuddy|kimi|cline|opencode|kilo|pi]...   # default: all
#
# Needs cargo, node + npm, and for Kimi a Python >= 3.12 (clients are installed once into
# target/e2e-clients/<agent>, or $OMC_E2E_CLIENTS_DIR/<agent>). FIXTURE_OUT=<dir> redirects the
# output when one client is named. Payloads keep the real temp paths, session ids and timestamps: expect a noisy diff.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ "$#" -eq 0 ]; then set -- codex gemini qwen copilot factory codebuddy kimi cline opencode kilo pi; fi
if [ -n "${FIXTURE_OUT:-}" ] && [ "$#" -ne 1 ]; then
  echo "FIXTURE_OUT needs exactly one client" >&2
  exit 2
fi
for agent in "$@"; do
  case "$agent" in
    codex | gemini | qwen | copilot | factory | codebuddy | kimi | cline | opencode | kilo | pi) ;;
    *) echo "unknown client: $agent (codex, gemini, qwen, copilot, factory, codebuddy, kimi, cline, opencode, kilo or pi)" >&2; exit 2 ;;
  esac
  if [ -z "${FIXTURE_OUT:-}" ]; then
    rm -f "$repo/tests/fixtures/$agent"/*.json
  fi
  cargo test --manifest-path "$repo/Cargo.toml" --test integration \
    "e2e_record::record_${agent}_fixtures" -- --ignored --exact --nocapture
done
