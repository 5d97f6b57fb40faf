#!/usr/bin/env bash
# The Windows cross toolchain for CI and for anyone checking the Windows build on Linux:
# rustup's x86_64-pc-windows-gnu standard library, Debian's mingw-w64 linker, Debian's Wine
# (wine64) and a Wine prefix in target/wine-prefix, and the ProcessPrng stub DLL
# (bcryptprimitives.c) for Rust's standard library, which asks for ProcessPrng, missing from
# Wine 8: without it the .exe starts and prints nothing (tests/windows/wine-run.sh puts it
# beside each .exe it runs). Idempotent: what is
# there already is skipped. Debian packages are pinned to bookworm's versions.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

TARGET=x86_64-pc-windows-gnu
MINGW_VERSION="12.2.0-14+deb12u1+25.2+b1"   # gcc-mingw-w64-x86-64-win32 (bookworm)
WINE_VERSION="8.0~repack-4"                  # wine64 (bookworm)

if ! rustup target list --installed | grep -qx "$TARGET"; then
    echo "windows/setup: rustup target add $TARGET"
    rustup target add "$TARGET"
fi

need=()
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=("gcc-mingw-w64-x86-64-win32=$MINGW_VERSION")
# wine64 is the loader; wine, Debian's `wine` command for it.
[ -x /usr/lib/wine/wine64 ] || command -v wine64 >/dev/null || need+=("wine64=$WINE_VERSION")
command -v wine >/dev/null || need+=("wine=$WINE_VERSION")
if [ ${#need[@]} -gt 0 ]; then
    echo "windows/setup: apt-get install ${need[*]}"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    # A pinned version the mirror no longer has: take the one it has rather than fail.
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]%%=*}" >/dev/null
fi
wine="$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)"

stub_dir="$root/target/windows-stub"
stub="$stub_dir/bcryptprimitives.dll"
if [ ! -f "$stub" ] || [ "$root/tests/windows/bcryptprimitives.c" -nt "$stub" ]; then
    mkdir -p "$stub_dir"
    x86_64-w64-mingw32-gcc -shared -O2 -o "$stub" "$root/tests/windows/bcryptprimitives.c" -ladvapi32
fi

# Beside where cargo puts the Windows binaries too, so that running one with plain `wine`
# (not through wine-run.sh) finds it as well; cargo leaves files it did not make alone.
for d in debug debug/deps release release/deps; do
    mkdir -p "$root/target/$TARGET/$d"
    cmp -s "$stub" "$root/target/$TARGET/$d/bcryptprimitives.dll" || cp "$stub" "$root/target/$TARGET/$d/"
done

export WINEPREFIX="${WINEPREFIX:-$root/target/wine-prefix}"
export WINEDEBUG="${WINEDEBUG:--all}"
if [ ! -f "$WINEPREFIX/system.reg" ]; then
    echo "windows/setup: wineboot (a new Wine prefix in $WINEPREFIX)"
    "$wine" wineboot -i >/dev/null 2>&1 || true
    wineserver -w 2>/dev/null || /usr/lib/wine/wineserver -w 2>/dev/null || true
fi
echo "windows/setup: $(rustc --version) + $TARGET, $(x86_64-w64-mingw32-gcc --version | head -1), $("$wine" --version)"
