#!/usr/bin/env bash
# Cargo's runner for x86_64-pc-windows-gnu (.cargo/config.toml): runs a Windows .exe under
# Wine, in the repository's own Wine prefix, with the ProcessPrng stub
# (tests/windows/bcryptprimitives.c, built by tests/windows/setup.sh) beside the .exe.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
exe="$(realpath "$1")"
shift
stub="$root/target/windows-stub/bcryptprimitives.dll"
[ -f "$stub" ] || { echo "wine-run: $stub missing: run tests/windows/setup.sh first" >&2; exit 2; }
dir="$(dirname "$exe")"
cmp -s "$stub" "$dir/bcryptprimitives.dll" 2>/dev/null || cp "$stub" "$dir/bcryptprimitives.dll"
export WINEPREFIX="${WINEPREFIX:-$root/target/wine-prefix}"
export WINEDEBUG="${WINEDEBUG:--all}"
# The stub beside the .exe is preferred to Wine's own (native, then builtin).
export WINEDLLOVERRIDES="${WINEDLLOVERRIDES:+$WINEDLLOVERRIDES;}bcryptprimitives=n,b"
wine="$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)"
exec "$wine" "$exe" "$@"
