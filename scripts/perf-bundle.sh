#!/usr/bin/env bash
# Packs this machine's `perf` with every library it loads (its own loader included) into
# .gpu/perf.txz, for the GPU machine, which has none: there,
#   tar xJf .gpu/perf.txz -C /tmp && export PATH=/tmp/perfb/bin:$PATH
# and bench/profile.sh finds it. Needs `perf` here (Debian: linux-perf).
set -euo pipefail
cd "$(dirname "$0")/.."
perf=$(command -v perf) || { echo "no perf on this machine (apt install linux-perf)" >&2; exit 1; }
tmp=$(mktemp -d)
mkdir -p "$tmp/perfb/lib" "$tmp/perfb/bin" .gpu
cp -L "$perf" "$tmp/perfb/perf"
for lib in $(ldd "$perf" | awk '/=>/ { print $3 } /ld-linux/ { print $1 }'); do cp -L "$lib" "$tmp/perfb/lib/"; done
cat > "$tmp/perfb/bin/perf" <<'WRAP'
#!/bin/sh
d=$(dirname "$0")/..
exec "$d/lib/ld-linux-x86-64.so.2" --library-path "$d/lib" "$d/perf" "$@"
WRAP
chmod +x "$tmp/perfb/bin/perf"
"$tmp/perfb/bin/perf" --version >/dev/null
tar cJf .gpu/perf.txz -C "$tmp" perfb
rm -rf "$tmp"
echo "packed perf into .gpu/perf.txz ($(du -h .gpu/perf.txz | cut -f1))"
