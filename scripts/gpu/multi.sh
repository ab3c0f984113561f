#!/usr/bin/env bash
# Run on the GPU machine from the repository root, with .gpu carried (bundle.sh, then scripts/gpu-build.sh;
# compare.sh also needs .gpu/base.tgz: a built checkout of the commit to compare against, bench/addon included).
# On several GPUs: the distributed specs, the cross-device copies, the launcher as one node of
# four and as two nodes of two, and the NCCL bench (launcher mode beside torchrun).
set -o pipefail
. .gpu/setup.sh >/dev/null && tar xzf .gpu/build.tgz
export CUDA_NODE_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages NCCL_NVLS_ENABLE=0 CUDA_NODE_BACKEND=cuda
nvidia-smi -L
echo "== specs"; timeout 300 npx ava __test__/distributed.spec.ts __test__/store.spec.ts __test__/launcher.spec.ts __test__/nccl.spec.ts __test__/cross-device-copy.spec.ts __test__/two-devices.spec.ts __test__/multi-device.spec.ts 2>&1 | tee $OUT/multi-ava.log | grep -E "✘|tests? (passed|failed|skipped)|exited" | head -30
cat > /tmp/rank.js <<'JS'
const cuda = require(process.cwd());
(async () => { const c = await cuda.nccl.initProcessGroup(); const b = cuda.alloc(4 << 20);
  cuda.kernels.fill(b, c.rankId + 1, 1 << 20, 'float32'); c.allReduce(b, b, 1 << 20, 'float32', 'sum');
  const o = new Float32Array(1); b.copyToHost(o); console.log('rank', c.rankId, 'of', c.size, 'device', c.deviceId, 'sum', o[0]); c.destroy() })()
JS
echo "== one node of four"; timeout 90 node cli/cli.js run --nproc-per-node 4 /tmp/rank.js 2>&1 | tail -6
echo "== two nodes of two"
CUDA_VISIBLE_DEVICES=0,1 timeout 90 node cli/cli.js run --nnodes 2 --node-rank 0 --nproc-per-node 2 --rdzv-endpoint 127.0.0.1:29400 --token t /tmp/rank.js > /tmp/n0.log 2>&1 &
CUDA_VISIBLE_DEVICES=2,3 timeout 90 node cli/cli.js run --nnodes 2 --node-rank 1 --nproc-per-node 2 --rdzv-endpoint 127.0.0.1:29400 --token t /tmp/rank.js > /tmp/n1.log 2>&1; wait
tail -n 4 /tmp/n0.log /tmp/n1.log
echo "== bench:nccl"; timeout 240 node --import tsx bench/nccl.ts --out $OUT 2>&1 | tail -30
