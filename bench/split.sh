#!/usr/bin/env bash
# bench/split.sh OUT_DIR [SECONDS]: where a hot call's time goes, ours beside the bare driver's.
# Each of record+query, idle synchronize, an empty launch and a stream made, used once and
# destroyed runs alone for SECONDS (2) under
# `perf record`, once from JS through the addon and once as the in-process floor (a Rust loop of
# bare driver calls); the time per call is split by library (node: V8 and JS; the addon; libcuda;
# the kernel) in proportion to perf's samples. A library's ns/call that is larger in ours than in
# the floor is time that library spends because of us; `node` and the addon are the binding's own.
# Needs perf and bench/addon (bench/perf-env.sh finds both; on the GPU machine, the packed perf).
set -euo pipefail
out=${1:?usage: bash bench/split.sh OUT_DIR [SECONDS]}
secs=${2:-2}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$root/bench/perf-env.sh"
export NAPI_RS_NATIVE_LIBRARY_PATH=$addon
cd "$root"
# Loads tsx and compiles once outside the measurement.
node --import tsx bench/split.ts idle_sync ours 0.2 >/dev/null
for op in record_query idle_sync launch stream_use; do
  for mode in floor ours; do
    data="$out/$op-$mode.data"
    ns=$(perf record -q -F 4999 -o "$data" node --perf-basic-prof --import tsx bench/split.ts "$op" "$mode" "$secs" 2>"$out/$op-$mode.err" | sed -n 's/^ns\/call //p')
    # The JS thread's samples only: the split is of the calling thread's time.
    pid=$(perf report -i "$data" --sort pid 2>/dev/null | grep -v '^#' | grep -m1 -o '[0-9]*:node' | cut -d: -f1 || true)
    perf report -i "$data" --no-children --tid "$pid" --sort dso 2>/dev/null | grep -v '^#' | grep '%' > "$out/$op-$mode-dso.txt" || true
    perf report -i "$data" --no-children --tid "$pid" --sort dso,symbol 2>/dev/null | grep -v '^#' | grep '%' | cut -c1-160 | head -n 30 > "$out/$op-$mode-top.txt" || true
    printf '%-13s %-6s %8s ns/call:' "$op" "$mode" "$ns"
    awk -v ns="$ns" '{ p = $1; sub(/%/, "", p); $1 = ""; sub(/^ +/, ""); printf "  %s %.0f", $0, p * ns / 100 }' "$out/$op-$mode-dso.txt" | cut -c1-400
    echo
  done
done
echo "per-call top symbols: $out/*-top.txt"
