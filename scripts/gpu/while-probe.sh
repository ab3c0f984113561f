#!/usr/bin/env bash
# On the GPU machine, .gpu carried: the while node under other processes' load, in plain CUDA
# (bench/probes/while-under-load.cu) and through cuda-node (scripts/gpu/flaky.js while).
. .gpu/setup.sh >/dev/null && tar xzf .gpu/build.tgz
export CUDA_NODE_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages NCCL_NVLS_ENABLE=0 CUDA_NODE_BACKEND=cuda
L=$OUT/probe; mkdir -p $L
nvcc -arch=native -o /tmp/while-probe bench/probes/while-under-load.cu -lcuda 2>&1 | grep -A3 error | head -20
echo "== plain CUDA, one process"; timeout 60 /tmp/while-probe 300 | tail -1
echo "== plain CUDA, 4 processes at once"
for w in 1 2 3 4; do (timeout 90 /tmp/while-probe 300 > $L/c-$w.txt 2>&1) & done; wait; cat $L/c-*.txt | grep probe
echo "== plain CUDA, 2 processes, beside 2 load processes"
for w in 1 2; do (timeout 90 node --expose-gc scripts/gpu/flaky.js load 40 > $L/l-$w.txt 2>&1) & done
sleep 3; for w in 1 2; do (timeout 80 /tmp/while-probe 300 > $L/cl-$w.txt 2>&1) & done; wait; cat $L/cl-*.txt | grep probe
