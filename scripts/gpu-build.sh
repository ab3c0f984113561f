#!/usr/bin/env bash
# Packs what `npm run build` made (the addon, the compiled JS, and bench/addon if `npm run bench`
# built it) into .gpu/build.tgz, beside what ../shared/gpu/bundle.sh packs, so a run on the GPU
# machine needs only `.gpu` carried: there, `. .gpu/setup.sh && tar xzf .gpu/build.tgz`.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .gpu
files=$(git ls-files --others --ignored --exclude-standard -- '*.js' '*.mjs' '*.d.ts' '*.node' \
  | grep -vE '^(node_modules|target|\.gpu|examples/out|docs/api)/' || true)
tar czf .gpu/build.tgz $files
echo "packed $(echo "$files" | wc -l) built files into .gpu/build.tgz ($(du -h .gpu/build.tgz | cut -f1))"
