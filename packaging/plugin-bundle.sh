#!/usr/bin/env bash
# Lays out the plugin bundle that marketplace installs get: the plugin manifest, hooks.json and
# one prebuilt binary per target under bin/<target>/omc-hooks (bin/<target>/omc-hooks.exe for
# Windows, which hooks.json's command runs under Git Bash), with bin/SHA256SUMS.
#
#   packaging/plugin-bundle.sh OUT_DIR ARTIFACTS_DIR [TARGET...]
#
# ARTIFACTS_DIR holds the release archives `dist` builds (omc-hooks-<target>.tar.xz; for Windows
# omc-hooks-<target>.zip) and their checksum files (<archive>.sha256). Every archive's checksum is verified before
# it is unpacked (packaging/archive.sh); a missing or wrong checksum stops the script. With TARGETs, each must be there
# (the release workflow names all five); without, every archive found is bundled.
# The release workflow commits OUT_DIR to the `plugin` branch, which the marketplace entry in
# .claude-plugin/marketplace.json installs; tests/e2e_install.rs installs a bundle made by this
# script into the real client.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR ARTIFACTS_DIR [TARGET...]" >&2; exit 2; }
out=$1 artifacts=$2
shift 2
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=packaging/archive.sh
. "$here/packaging/archive.sh"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for a in "$artifacts"/omc-hooks-*.tar.xz "$artifacts"/omc-hooks-*-windows-*.zip; do
    [ -e "$a" ] || continue
    t=${a##*/omc-hooks-}
    t=${t%.tar.xz}
    targets+=("${t%.zip}")
  done
fi
[ ${#targets[@]} -gt 0 ] || { echo "no omc-hooks-<target>.tar.xz (or Windows .zip) in $artifacts" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/.claude-plugin" "$out/bin"
[ -d "$here/commands" ] && cp -R "$here/commands" "$out/commands"
cp "$here/hooks.json" "$out/hooks.json"
cp "$here/.claude-plugin/plugin.json" "$here/.claude-plugin/icon.png" "$out/.claude-plugin/"
cp "$here/README.md" "$here/LICENSE" "$out/"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in "${targets[@]}"; do
  bin=$(release_binary "$artifacts" "$t" "$work")
  mkdir -p "$out/bin/$t"
  install -m 0755 "$bin" "$out/bin/$t/$(binary_name "$t")"
done
(cd "$out/bin" && find . -type f \( -name omc-hooks -o -name omc-hooks.exe \) | sort | sed 's|^\./||' | xargs sha256sum > SHA256SUMS)
echo "plugin bundle in $out: ${targets[*]}"
