#!/usr/bin/env bash
# Builds the npm packages of omc-hooks as .tgz files in OUT_DIR, versions from Cargo.toml:
#
#   packaging/npm-pack.sh OUT_DIR                      this machine's platform package, from
#                                                      target/release/omc-hooks (built first
#                                                      with cargo build --release --locked)
#   packaging/npm-pack.sh OUT_DIR --binary PATH        the same from the binary at PATH
#   packaging/npm-pack.sh OUT_DIR --archives DIR       every release target's package, from the
#                                                      archives dist built (the release workflow)
#
# and, each time, the main package `omc-hooks`: a small Node.js launcher
# (packaging/npm/omc-hooks.js) with no install script, whose optionalDependencies name every
# platform package at this exact version. npm installs the one whose `os` and `cpu` match the
# machine and skips the others; the launcher runs that package's binary. `omc-hooks install`
# run through it writes the binary's own path into the hook files, so hooks never start Node.
#
# The Linux release binaries are static musl executables: they run on glibc and musl systems
# (Alpine) alike, so one package per CPU serves both and there is no separate -musl package.
# A binary built here (glibc) is static where build.rs could link it so (BENCHMARKS.md).
#
# packaging/npm-publish.sh publishes the result; .ci/run installs it offline and runs the
# real-client tests against it; docs/releasing.md says what a maintainer sets up once.
set -euo pipefail
usage() { echo "usage: $0 OUT_DIR [--binary PATH | --archives DIR]" >&2; exit 2; }
[ $# -eq 1 ] || [ $# -eq 3 ] || usage
out=$1 mode=${2:-} from=${3:-}
case "$mode" in ''|--binary|--archives) ;; *) usage ;; esac
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=packaging/archive.sh
. "$here/packaging/archive.sh"
command -v npm >/dev/null || { echo "npm is needed to pack the packages (Node.js 18 or later)" >&2; exit 1; }

# Release target → npm platform (`${process.platform}-${process.arch}`, what the launcher asks
# for). The targets are src/hooks.rs RELEASE_TARGETS and dist-workspace.toml's (a test checks).
# Windows: the MSVC build dist makes on GitHub's Windows runners, its binary omc-hooks.exe.
# (No win32-arm64: the release workflow has no Windows arm64 build.)
PLATFORMS=(
  "x86_64-unknown-linux-musl linux-x64"
  "aarch64-unknown-linux-musl linux-arm64"
  "x86_64-apple-darwin darwin-x64"
  "aarch64-apple-darwin darwin-arm64"
  "x86_64-pc-windows-msvc win32-x64"
)

# [package] fields of Cargo.toml (plain "…" strings, as they are written there).
field() {
  awk -v k="$1" '
    /^\[/ { p = ($0 == "[package]") }
    p && $1 == k && $2 == "=" { sub(/^[^=]*= *"/, ""); sub(/"[ \t]*$/, ""); print; exit }
  ' "$here/Cargo.toml"
}
version=$(field version)
[ -n "$version" ] || { echo "no version in $here/Cargo.toml" >&2; exit 1; }
export OMC_VERSION=$version OMC_DESCRIPTION="$(field description)" OMC_LICENSE="$(field license)"
export OMC_REPOSITORY="$(field repository)"
export OMC_PLATFORMS="${PLATFORMS[*]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
out=$(cd "$out" && pwd)

# One platform package: package.json, the binary as bin/omc-hooks (bin/omc-hooks.exe for
# win32), README and LICENSE. (A zip made on Windows records no execute bit: a Windows binary
# need only be a file.)
platform_package() {
  local platform=$1 bin=$2 dir="$work/pkg/$1" exe=omc-hooks
  case "$platform" in win32-*) exe=omc-hooks.exe ;; esac
  if [ "$exe" = omc-hooks.exe ]; then
    [ -f "$bin" ] || { echo "$bin is not a file" >&2; exit 1; }
  else
    [ -x "$bin" ] || { echo "$bin is not an executable file" >&2; exit 1; }
  fi
  mkdir -p "$dir/bin"
  install -m 0755 "$bin" "$dir/bin/$exe"
  cp "$here/LICENSE" "$dir/"
  OMC_PLATFORM=$platform OMC_EXE=$exe node -e '
    const e = process.env, [os, cpu] = e.OMC_PLATFORM.split("-");
    const pkg = {
      name: `@omc-hooks/${e.OMC_PLATFORM}`,
      version: e.OMC_VERSION,
      description: `The omc-hooks binary for ${e.OMC_PLATFORM}, installed by the omc-hooks package.`,
      license: e.OMC_LICENSE,
      repository: { type: "git", url: `git+${e.OMC_REPOSITORY}.git` },
      os: [os],
      cpu: [cpu],
      files: [`bin/${e.OMC_EXE}`],
      preferUnplugged: true,
      publishConfig: { access: "public" },
    };
    process.stdout.write(JSON.stringify(pkg, null, 2) + "\n");
  ' > "$dir/package.json"
  printf '# @omc-hooks/%s\n\nThe omc-hooks binary for %s. Install `omc-hooks` instead: it depends on this package\nwhere it fits the machine (see its README).\n' \
    "$platform" "$platform" > "$dir/README.md"
  echo "$dir"
}

dirs=()
case "$mode" in
  --archives)
    for pair in "${PLATFORMS[@]}"; do
      read -r target platform <<<"$pair"
      bin=$(release_binary "$from" "$target" "$work/archives")
      dirs+=("$(platform_package "$platform" "$bin")")
    done
    ;;
  *)
    platform=$(node -p 'process.platform + "-" + process.arch')
    known=0
    for pair in "${PLATFORMS[@]}"; do [ "${pair#* }" = "$platform" ] && known=1; done
    [ $known = 1 ] || { echo "no release target for this machine ($platform)" >&2; exit 1; }
    if [ "$mode" = --binary ]; then
      bin=$from
    else
      (cd "$here" && cargo build --release --locked --bin omc-hooks)
      bin="$here/target/release/omc-hooks"
      case "$platform" in win32-*) bin="$bin.exe" ;; esac
    fi
    dirs+=("$(platform_package "$platform" "$bin")")
    ;;
esac

# The main package: the launcher, README, LICENSE; every platform package optional.
main="$work/pkg/omc-hooks"
mkdir -p "$main/bin"
install -m 0755 "$here/packaging/npm/omc-hooks.js" "$main/bin/omc-hooks.js"
cp "$here/README.md" "$here/LICENSE" "$main/"
node -e '
  const e = process.env;
  const optional = {};
  for (const pair of e.OMC_PLATFORMS.split(" ").filter((w, i) => i % 2 === 1)) {
    optional[`@omc-hooks/${pair}`] = e.OMC_VERSION;
  }
  const pkg = {
    name: "omc-hooks",
    version: e.OMC_VERSION,
    description: e.OMC_DESCRIPTION,
    license: e.OMC_LICENSE,
    repository: { type: "git", url: `git+${e.OMC_REPOSITORY}.git` },
    keywords: ["claude-code", "codex", "gemini-cli", "qwen-code", "cursor", "hooks", "ralph"],
    bin: { "omc-hooks": "bin/omc-hooks.js" },
    files: ["bin/omc-hooks.js"],
    engines: { node: ">=16" },
    optionalDependencies: optional,
  };
  process.stdout.write(JSON.stringify(pkg, null, 2) + "\n");
' > "$main/package.json"
dirs+=("$main")

for d in "${dirs[@]}"; do
  (cd "$d" && npm pack --silent --pack-destination "$out" >/dev/null)
done
echo "npm packages $version in $out:"
(cd "$out" && ls -1 ./*.tgz | sed 's|^\./|  |')
