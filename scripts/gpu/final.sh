#!/usr/bin/env bash
# On the GPU machine, .gpu carried: the whole suite, the while node in plain CUDA under load at two
# loop lengths, the memory history's cost, then the hot rows against .gpu/base.tgz.
SUITE_TIMEOUT=${SUITE_TIMEOUT:-360} bash scripts/gpu/suite.sh
. .gpu/setup.sh >/dev/null
export CUDA_NODE_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages NCCL_NVLS_ENABLE=0 CUDA_NODE_BACKEND=cuda
echo "== the while node in plain CUDA, 4 processes at once"
nvcc -arch=native -o /tmp/while-probe bench/probes/while-under-load.cu -lcuda 2>&1 | grep -A3 error | head
for limit in 20 1000; do for w in 1 2 3 4; do (timeout 60 /tmp/while-probe 150 $limit | tail -1) & done; wait; done
echo "== memory history bench"; BENCH_ROUNDS=${HIST_ROUNDS:-7} timeout 150 node --import tsx bench/memory-history.ts > $OUT/memory-history.txt 2>&1; tail -24 $OUT/memory-history.txt
ROUNDS=${ROUNDS:-5} bash scripts/gpu/compare.sh 2>&1 | tail -26
