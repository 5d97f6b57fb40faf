#!/usr/bin/env bash
# Publishes the npm packages packaging/npm-pack.sh made, platform packages first, then the
# launcher package `omc-hooks` that depends on them:
#
#   packaging/npm-publish.sh DIR             publish every .tgz in DIR (the release workflow)
#   packaging/npm-publish.sh DIR --dry-run   everything but the upload (CI; offline, no login)
#
# A real publish needs every platform package the launcher names, at its version: published
# without them, `npm i -g omc-hooks` would install a launcher with no binary. A version already
# on the registry is skipped with a note, so a release job that failed half-way can be re-run.
# In GitHub Actions, with an OIDC token, packages are published with provenance (npm checks it
# against package.json's repository, which is Cargo.toml's; docs/releasing.md). The token is
# npm's own configuration (NODE_AUTH_TOKEN in the workflow, from a repository secret), or none
# at all with npm's trusted publishing; this script never sees or stores one.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 DIR [--dry-run]" >&2; exit 2; }
dir=$(cd "$1" && pwd)
dry=${2:-}
[ -z "$dry" ] || [ "$dry" = --dry-run ] || { echo "usage: $0 DIR [--dry-run]" >&2; exit 2; }

# name@version of a tarball, and the launcher's optionalDependencies as name@version lines.
manifest() { tar -xzOf "$1" package/package.json; }
ident() { manifest "$1" | node -e 'const p = JSON.parse(require("fs").readFileSync(0)); console.log(`${p.name}@${p.version}`)'; }

main="" platforms=()
declare -A have=()
for f in "$dir"/*.tgz; do
  [ -e "$f" ] || continue
  id=$(ident "$f")
  have[$id]=$f
  if [ "${id%@*}" = omc-hooks ]; then main=$f; else platforms+=("$f"); fi
done
[ -n "$main" ] || { echo "no omc-hooks-<version>.tgz in $dir (packaging/npm-pack.sh makes it)" >&2; exit 1; }

missing=()
while read -r dep; do
  [ -n "${have[$dep]:-}" ] || missing+=("$dep")
done < <(manifest "$main" | node -e '
  const p = JSON.parse(require("fs").readFileSync(0));
  for (const [n, v] of Object.entries(p.optionalDependencies || {})) console.log(`${n}@${v}`);
')
if [ ${#missing[@]} -gt 0 ]; then
  if [ -z "$dry" ]; then
    echo "not publishing: the launcher $(ident "$main") names packages that are not in $dir: ${missing[*]}" >&2
    exit 1
  fi
  echo "(dry run) not in $dir, a release would need them: ${missing[*]}"
fi

flags=(--access public)
if [ -n "$dry" ]; then
  # --offline: npm's dry run otherwise asks the registry for the package (retrying for a
  # minute when it cannot be reached); nothing here needs the answer.
  flags+=(--dry-run --offline)
elif [ "${GITHUB_ACTIONS:-}" = true ] && [ -n "${ACTIONS_ID_TOKEN_REQUEST_URL:-}" ]; then
  flags+=(--provenance)
fi

for f in "${platforms[@]}" "$main"; do
  id=$(ident "$f")
  if [ -z "$dry" ] && npm view "$id" version >/dev/null 2>&1; then
    echo "$id is already published: skipped"
    continue
  fi
  echo "npm publish $id ${flags[*]}"
  npm publish "$f" "${flags[@]}"
done
