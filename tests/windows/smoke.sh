#!/usr/bin/env bash
# The Windows build, hook-level, under Wine: called as a Windows agent calls it, from a project
# at a Z:\ path (Wine's view of /), with Claude Code's payloads (shapes from
# tests/fixtures/claude-code/). Checks: `--version` answers; `ralph fix the failing tests` on
# user-prompt-submit starts a run whose state file lands under the project's .omc/ (looked at
# from the Linux side); the next stop continues it (a block decision, iteration 2); cancel ends
# it, and the stop after that lets the agent stop; install and uninstall round-trip a CRLF
# settings file.
# Usage: tests/windows/smoke.sh [path/to/omc-hooks.exe]   (default: the release cross-build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
exe="$(realpath "${1:-$root/target/x86_64-pc-windows-gnu/release/omc-hooks.exe}")"
run() { "$root/tests/windows/wine-run.sh" "$exe" "$@"; }
fail() { echo "windows smoke: FAIL: $*" >&2; exit 1; }

work="$(mktemp -d /tmp/omc-win-smoke.XXXXXX)"
trap 'rm -rf "$work"' EXIT
project="$work/my project"               # a space, as in C:\Users\Jane Doe\...
mkdir -p "$project/.git" "$work/home/.claude/projects/p"
wproject="Z:${project//\//\\}"
transcript="$work/home/.claude/projects/p/s.jsonl"
printf '%s\n' '{"type":"user","message":{"role":"user","content":"ralph fix the failing tests"}}' >"$transcript"
wtranscript="Z:${transcript//\//\\}"
json_path() { local s="${1//\\/\\\\}"; printf '%s' "${s//\"/\\\"}"; }
sid="0c0ffee0-7a11-4b0b-9e37-0123456789ab"
common="\"session_id\":\"$sid\",\"transcript_path\":\"$(json_path "$wtranscript")\",\"cwd\":\"$(json_path "$wproject")\",\"permission_mode\":\"default\""

version="$(run --version)"
[[ "$version" == omc-hooks\ * ]] || fail "--version answered: $version"
echo "windows smoke: --version: $version"

cd "$project"
out="$(printf '{%s,"hook_event_name":"UserPromptSubmit","prompt":"ralph fix the failing tests"}' "$common" | run user-prompt-submit)"
[[ "$out" == *'[MAGIC KEYWORD: RALPH]'* ]] || fail "user-prompt-submit answered: $out"
state="$project/.omc/state/sessions/$sid/ralph-state.json"
[ -f "$state" ] || fail "no state file at $state: $(find "$project/.omc" 2>&1 | head)"
grep -q '"active": true' "$state" || fail "the run is not active: $(cat "$state")"
grep -q '"iteration": 1' "$state" || fail "not iteration 1: $(cat "$state")"
echo "windows smoke: user-prompt-submit started ralph; state at ${state#"$work"/}"

stop="$(printf '{%s,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"I changed one test."}' "$common")"
out="$(printf '%s' "$stop" | run stop)"
[[ "$out" == *'"decision":"block"'* && "$out" == *'RALPH LOOP - ITERATION 2/'* ]] || fail "stop answered: $out"
grep -q '"iteration": 2' "$state" || fail "stop did not record iteration 2: $(cat "$state")"
echo "windows smoke: stop continued the run (iteration 2)"

out="$(printf '{%s,"hook_event_name":"UserPromptSubmit","prompt":"cancelomc"}' "$common" | run user-prompt-submit)"
out="$(printf '%s' "$stop" | run stop)"
[[ "$out" != *'"decision":"block"'* ]] || fail "stop after cancelomc still blocks: $out"
echo "windows smoke: cancelomc ended it; the next stop lets the agent stop"
leftovers="$(find "$project/.omc" -name '.tmp-*' | head -3)"
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"

# install into a CRLF settings file (no HOME: the registry goes under USERPROFILE), again
# (nothing changes), uninstall (the file byte for byte as it was).
mkdir -p "$project/.claude"
settings="$project/.claude/settings.local.json"
printf '{\r\n  "permissions": {}\r\n}\r\n' >"$settings"
cp "$settings" "$work/settings.before"
env -u HOME "$root/tests/windows/wine-run.sh" "$exe" install >"$work/install.out" 2>&1 || fail "install: $(cat "$work/install.out")"
grep -q "'Z:\\\\.*omc-hooks.exe' user-prompt-submit\"" "$settings" || fail "install wrote no plain quoted path: $(grep -m3 command "$settings")"
[ "$(grep -c $'\r$' "$settings")" = "$(wc -l <"$settings")" ] || fail "install lost the CRLF line ends"
out="$(env -u HOME "$root/tests/windows/wine-run.sh" "$exe" install 2>&1)"
[[ "$out" == *"already installed"* ]] || fail "a second install changed something: $out"
env -u HOME "$root/tests/windows/wine-run.sh" "$exe" uninstall >/dev/null 2>&1 || fail "uninstall failed"
cmp -s "$settings" "$work/settings.before" || fail "uninstall did not give the settings file back byte for byte"
echo "windows smoke: install (CRLF kept, 'Z:\\…\\omc-hooks.exe' quoted), again unchanged, uninstall byte for byte"
echo "windows smoke: ok"
