#!/usr/bin/env bash
# On the GPU machine, .gpu carried: the two scenarios seen failing only in whole-suite runs
# (scripts/gpu/flaky.js), alone, then beside the whole suite and other load, then the while node
# under compute-sanitizer beside load. Logs under $OUT/flaky.
set -o pipefail
. .gpu/setup.sh >/dev/null && tar xzf .gpu/build.tgz
if [ -f .gpu/node-include.tgz ]; then mkdir -p /tmp/gpu-node/include && tar xzf .gpu/node-include.tgz -C /tmp/gpu-node/include; fi
export CUDA_NODE_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages NCCL_NVLS_ENABLE=0 CUDA_NODE_BACKEND=cuda
L=$OUT/flaky; mkdir -p $L
echo "== alone"
timeout 60 node scripts/gpu/flaky.js while ${WHILE_N:-300} > $L/while-alone.txt 2>&1; tail -1 $L/while-alone.txt
timeout 60 node scripts/gpu/flaky.js legacy 20 > $L/legacy-alone.txt 2>&1; tail -1 $L/legacy-alone.txt
echo "== beside the whole suite and load"
(timeout ${SUITE_TIMEOUT:-300} npx ava > $L/ava.log 2>&1; echo done > $L/suite.done) &
sleep 5
for w in 1 2 3; do (while [ ! -f $L/suite.done ]; do timeout 120 node scripts/gpu/flaky.js while 200 >> $L/while-load.txt 2>&1; done) & done
(while [ ! -f $L/suite.done ]; do timeout 120 node scripts/gpu/flaky.js legacy 20 >> $L/legacy-load.txt 2>&1; done) &
(while [ ! -f $L/suite.done ]; do timeout 120 node --expose-gc scripts/gpu/flaky.js load 20 >> $L/load.txt 2>&1; done) &
wait
grep -E "✘|tests? (passed|failed|skipped)" $L/ava.log | head -20
echo "while beside load: runs $(grep -c '"cases"' $L/while-load.txt), failed runs $(grep '"cases"' $L/while-load.txt | grep -vc '"failed":0')"; grep -h '"error"' $L/while-load.txt | cut -c1-300 | sort | uniq -c | head -5
echo "legacy beside load: cases $(grep -c '"i":' $L/legacy-load.txt), over 60 ms $(grep -c '"ok":false' $L/legacy-load.txt), the legacy stream done first $(grep -c '"legacyBusy":false' $L/legacy-load.txt)"; grep -h '"ok":false' $L/legacy-load.txt | head -8
echo "== the while node under compute-sanitizer beside load"
for w in 2 3; do (timeout 100 node --expose-gc scripts/gpu/flaky.js load 90 >> $L/load.txt 2>&1) & done
timeout 95 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 20 node scripts/gpu/flaky.js while ${SAN_N:-40} > $L/while-sanitizer.txt 2>&1; echo "rc $?"
wait
grep -v "Host Frame" $L/while-sanitizer.txt | grep -v cuFuncGetParamInfo | tail -12
