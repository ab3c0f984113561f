#!/usr/bin/env bash
# Run on the GPU machine from the repository root, with .gpu carried (bundle.sh, then scripts/gpu-build.sh;
# compare.sh also needs .gpu/base.tgz: a built checkout of the commit to compare against, bench/addon included).
set -o pipefail
. .gpu/setup.sh >/dev/null && tar xzf .gpu/build.tgz
export CUDA_NODE_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages NCCL_NVLS_ENABLE=0 CUDA_NODE_BACKEND=cuda
mkdir -p /tmp/base && tar xzf .gpu/base.tgz -C /tmp/base && ln -sfn "$PWD/node_modules" /tmp/base/node_modules
addon=$(ls $PWD/bench/addon/*.node)
echo "== compare"; BENCH_ROUNDS=${ROUNDS:-3} timeout 300 node --import tsx bench/compare.ts /tmp/base . > $OUT/compare.log 2>&1; tail -18 $OUT/compare.log
echo "== copies"; NAPI_RS_NATIVE_LIBRARY_PATH=$addon BENCH_ONLY=h2d_pinned,d2h_pinned,h2d_pageable,d2h_pageable,h2d_pageable_again,d2h_pageable_again timeout 150 node --import tsx bench/round.ts /tmp/copies.json > $OUT/copies.log 2>&1; node -e "for (const r of require('/tmp/copies.json').rows) console.log(r.op.padEnd(60), r.value.toFixed(2), r.unit)" || tail -5 $OUT/copies.log
