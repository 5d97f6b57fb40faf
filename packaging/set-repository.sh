#!/usr/bin/env bash
# Names the GitHub repository releases come from, everywhere it is written:
#
#   packaging/set-repository.sh OWNER/NAME [CHECKOUT]
#
# Cargo.toml's `repository` (which the npm packages copy when packed, and npm's provenance
# check compares with the repository the release workflow runs in), the marketplace entry's
# source in .claude-plugin/marketplace.json (the `plugin` branch of that repository), and the
# README's marketplace commands. tests/packaging.rs fails while any of them disagree.
# docs/releasing.md: the maintainer's one-time steps this is part of.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 OWNER/NAME [CHECKOUT]" >&2; exit 2; }
new=$1
root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
[[ $new =~ ^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$ ]] || { echo "not OWNER/NAME: $new" >&2; exit 2; }
old=$(sed -n 's|^repository = "https://github.com/\([^"]*\)"$|\1|p' "$root/Cargo.toml")
[ -n "$old" ] || { echo "no repository = \"https://github.com/…\" in $root/Cargo.toml" >&2; exit 1; }
# The old name as a literal in a sed pattern.
o=$(printf '%s' "$old" | sed 's|[.[\*^$/]|\\&|g')
sed -i "s|^repository = \"https://github.com/$o\"\$|repository = \"https://github.com/$new\"|" "$root/Cargo.toml"
sed -i "s|\"repo\": \"$o\"|\"repo\": \"$new\"|" "$root/.claude-plugin/marketplace.json"
sed -i -e "s|--marketplace $o\\b|--marketplace $new|g" -e "s|marketplace add $o\\b|marketplace add $new|g" \
  "$root/README.md"
echo "repository: $old -> $new (Cargo.toml, .claude-plugin/marketplace.json, README.md)"
