#!/usr/bin/env bash
# Run on the GPU machine from the repository root, with .gpu carried (bundle.sh, then scripts/gpu-build.sh;
# compare.sh also needs .gpu/base.tgz: a built checkout of the commit to compare against, bench/addon included).
# The whole suite on the GPU, then the CLI's telemetry frame.
set -o pipefail
. .gpu/setup.sh >/dev/null && tar xzf .gpu/build.tgz
# Node's headers, where packed (tar czf .gpu/node-include.tgz -C /usr/include node): c-allocator.spec builds a small addon with them.
if [ -f .gpu/node-include.tgz ]; then mkdir -p /tmp/gpu-node/include && tar xzf .gpu/node-include.tgz -C /tmp/gpu-node/include; fi
export CUDA_NODE_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages NCCL_NVLS_ENABLE=0 CUDA_NODE_BACKEND=cuda
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
timeout ${SUITE_TIMEOUT:-420} npx ava ${SPECS:-} 2>&1 | tee $OUT/ava.log | grep -E "✘|tests? (passed|failed|skipped)|uncaught|exited|timed out" | head -80
echo "== top --once"; timeout 30 node cli/cli.js top --once 2>&1 | tee $OUT/top.txt | head -20
