#!/usr/bin/env bash
# On the GPU machine, .gpu carried: runs out of memory on purpose with the memory history on
# (__test__/fixtures/oom-snapshot.js) and leaves the snapshot it dumped in $OUT/snap, for
# `CUDA_NODE_OOM_SNAPSHOT=<it> npx ava __test__/memviz.spec.ts` on a machine with chromium.
. .gpu/setup.sh >/dev/null && tar xzf .gpu/build.tgz
export CUDA_NODE_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages CUDA_NODE_BACKEND=cuda
mkdir -p $OUT/snap && CUDA_NODE_MEMORY_SNAPSHOT_ON_OOM=$OUT/snap timeout 60 node __test__/fixtures/oom-snapshot.js
ls -la $OUT/snap
