# Sourced by plugin-bundle.sh and npm-pack.sh: the one way a release archive becomes a binary.
#
#   release_binary ARTIFACTS_DIR TARGET WORK_DIR   → prints the path of the unpacked omc-hooks
#
# ARTIFACTS_DIR holds what `dist` builds for a release: omc-hooks-<target>.tar.xz and its
# checksum file omc-hooks-<target>.tar.xz.sha256. The archive's checksum is verified before
# it is unpacked (into WORK_DIR/<target>); a missing archive, a missing or wrong checksum, or
# an archive without the binary stops the calling script (set -e) with what is wrong.
release_binary() {
  local artifacts=$1 t=$2 work=$3
  local archive="$artifacts/omc-hooks-$t.tar.xz"
  [ -f "$archive" ] || { echo "missing $archive" >&2; return 1; }
  [ -f "$archive.sha256" ] || { echo "missing $archive.sha256" >&2; return 1; }
  local want have bin
  want=$(awk '{print $1; exit}' "$archive.sha256")
  have=$(sha256sum "$archive" | awk '{print $1}')
  [ "$want" = "$have" ] || { echo "checksum mismatch for $archive: $have, expected $want" >&2; return 1; }
  mkdir -p "$work/$t"
  tar -xJf "$archive" -C "$work/$t"
  bin=$(find "$work/$t" -type f -name omc-hooks | head -n 1)
  [ -n "$bin" ] || { echo "$archive holds no omc-hooks binary" >&2; return 1; }
  printf '%s\n' "$bin"
}
