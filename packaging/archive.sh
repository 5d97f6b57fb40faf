# Sourced by plugin-bundle.sh and npm-pack.sh: the one way a release archive becomes a binary.
#
#   release_binary ARTIFACTS_DIR TARGET WORK_DIR   → prints the path of the unpacked binary
#   binary_name TARGET                             → omc-hooks.exe for Windows, else omc-hooks
#
# ARTIFACTS_DIR holds what `dist` builds for a release: omc-hooks-<target>.tar.xz (a Windows
# target: omc-hooks-<target>.zip, dist's default there, holding omc-hooks.exe) and its checksum
# file <archive>.sha256. The archive's checksum is verified before it is unpacked (into
# WORK_DIR/<target>); a missing archive, a missing or wrong checksum, or an archive without the
# binary stops the calling script (set -e) with what is wrong.
binary_name() {
  case "$1" in
    *-windows-*) echo omc-hooks.exe ;;
    *) echo omc-hooks ;;
  esac
}

release_archive_path() {
  case "$2" in
    *-windows-*) echo "$1/omc-hooks-$2.zip" ;;
    *) echo "$1/omc-hooks-$2.tar.xz" ;;
  esac
}

release_binary() {
  local artifacts=$1 t=$2 work=$3
  local archive name
  archive=$(release_archive_path "$artifacts" "$t")
  name=$(binary_name "$t")
  [ -f "$archive" ] || { echo "missing $archive" >&2; return 1; }
  [ -f "$archive.sha256" ] || { echo "missing $archive.sha256" >&2; return 1; }
  local want have bin
  want=$(awk '{print $1; exit}' "$archive.sha256")
  have=$(sha256sum "$archive" | awk '{print $1}')
  [ "$want" = "$have" ] || { echo "checksum mismatch for $archive: $have, expected $want" >&2; return 1; }
  mkdir -p "$work/$t"
  case "$archive" in
    *.zip)
      command -v unzip >/dev/null || { echo "unzip is needed to unpack $archive" >&2; return 1; }
      unzip -q -o "$archive" -d "$work/$t" ;;
    *) tar -xJf "$archive" -C "$work/$t" ;;
  esac
  bin=$(find "$work/$t" -type f -name "$name" | head -n 1)
  [ -n "$bin" ] || { echo "$archive holds no $name binary" >&2; return 1; }
  printf '%s\n' "$bin"
}
