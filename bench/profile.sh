#!/usr/bin/env bash
# bench/profile.sh OUT_DIR [ROWS]: a CPU profile of the bench's hot-call rows, for the GPU machine.
#
#   bash bench/profile.sh /tmp/prof                     # the hot calls (below)
#   bash bench/profile.sh /tmp/prof idle_stream_sync    # one row (keys as in bench/lib.ts)
#
# Writes into OUT_DIR: bench.txt (the rows, each with the bare driver in this process), the
# results' .json/.md, node's *.cpuprofile (open in Chrome DevTools or VS Code), top.txt (the 25
# functions with the most self time, from scripts/cpuprofile-top.js), and where `perf` is installed,
# perf.data with perf-dso.txt (time by library: node, the addon, libcuda, the kernel),
# perf-threads.txt (by thread) and perf-top.txt (by symbol). The GPU machine has no perf: where
# .gpu/perf.txz is (scripts/perf-bundle.sh packs this machine's), it is unpacked and used. V8 sees no native frames, so in top.txt a native call's time is its
# JS caller's; perf splits it. The addon is bench/addon's (npm run bench builds it; where there
# is no Rust, the one carried there), or CUDA_NODE_BENCH_ADDON. BENCH_ROUNDS: rounds (1).
set -euo pipefail
out=${1:?usage: bash bench/profile.sh OUT_DIR [row,row,...]}
rows=${2:-stream_create_destroy,event_create_destroy,event_record_query,event_pair_sync_elapsed,idle_stream_sync,sync_async_idle,empty_kernel_launch,eager_100,nvtx_push_pop,host_callback,host_fn_spin,host_wake,event_loop_wake}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$root/bench/perf-env.sh"
export BENCH_ONLY=$rows BENCH_ROUNDS=${BENCH_ROUNDS:-1} NAPI_RS_NATIVE_LIBRARY_PATH=$addon
cd "$root"
echo "rows: $rows; addon: $addon" | tee "$out/bench.txt"
node --cpu-prof --cpu-prof-dir="$out" --cpu-prof-interval 100 --import tsx bench/profile.ts "$out" | tee -a "$out/bench.txt"
node scripts/cpuprofile-top.js "$out"/*.cpuprofile 25 | tee "$out/top.txt"
if command -v perf >/dev/null 2>&1; then
  # A second run under perf (without --cpu-prof, which would add its sampling thread).
  if perf record -F 2999 -g -o "$out/perf.data" node --perf-basic-prof --import tsx bench/profile.ts "$out" > "$out/perf-bench.txt" 2> "$out/perf-record.err"; then
    report() { perf report -i "$out/perf.data" --no-children -g none --sort "$1" 2>/dev/null | grep -v '^#' | grep '%' | sed 's/ *$//' | cut -c1-200 | head -n "$2"; }
    report dso 15 > "$out/perf-dso.txt" || true
    report tid 15 > "$out/perf-threads.txt" || true
    report dso,symbol 40 > "$out/perf-top.txt" || true
    echo "perf: by library"; cat "$out/perf-dso.txt"
    echo "perf: by thread (a busy thread beside the JS one is a suspect for slow driver calls)"; cat "$out/perf-threads.txt"
    echo "perf: by symbol (top 20; 40 in $out/perf-top.txt)"; head -n 20 "$out/perf-top.txt"
  else
    echo "perf record failed (see $out/perf-record.err; perf_event_paranoid may forbid it)"
  fi
fi
echo "profile in $out"
