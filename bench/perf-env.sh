# Sourced by bench/profile.sh and bench/split.sh, with `root` set to the project root: puts perf
# on PATH where the machine has none but .gpu/perf.txz is there (scripts/perf-bundle.sh packs this
# machine's for the GPU machine), and sets `addon` to the addon with the in-process floor
# (bench/addon's, or CUDA_NODE_BENCH_ADDON), exiting where there is none.
if ! command -v perf >/dev/null 2>&1 && [ -f "$root/.gpu/perf.txz" ]; then
  mkdir -p /tmp/cuda-node-perf && tar xJf "$root/.gpu/perf.txz" -C /tmp/cuda-node-perf
  export PATH=/tmp/cuda-node-perf/perfb/bin:$PATH
fi
addon=${CUDA_NODE_BENCH_ADDON:-$(ls "$root"/bench/addon/*.node 2>/dev/null | head -n 1)}
if [ -z "$addon" ]; then
  echo "no bench/addon/*.node: run npm run bench once (it builds the addon with the in-process floor), or set CUDA_NODE_BENCH_ADDON" >&2
  exit 1
fi
