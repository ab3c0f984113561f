// The floor: the benchmark's operations on the CUDA driver API from C++, timed as the JS bench
// times them (median µs per operation over batches). Built and run by `npm run bench` where nvcc
// is found; prints one JSON object per line: {"key": ..., "value": ..., "unit": ...}.
#include <cuda.h>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <vector>
#include "nvtx3/nvToolsExt.h"

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s; cuGetErrorString(r_, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static void emit(const char* key, double v, const char* unit = "us") { printf("{\"key\":\"%s\",\"value\":%.4f,\"unit\":\"%s\"}\n", key, v, unit); fflush(stdout); }

static void bench(const char* key, int n, const std::function<void()>& f, int batches = 15, double per_call = 1) {
  for (int i = 0; i < std::min(n, 1000); i++) f();
  std::vector<double> per;
  for (int b = 0; b < batches; b++) {
    double t0 = now_us();
    for (int i = 0; i < n; i++) f();
    per.push_back((now_us() - t0) / n);
  }
  std::sort(per.begin(), per.end());
  emit(key, per[per.size() / 2] / per_call);
}

static const char* EMPTY_PTX = ".version 6.0\n.target sm_50\n.address_size 64\n.visible .entry empty() { ret; }\n";

int main() {
  CK(cuInit(0));
  CUdevice dev; CK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUmodule mod; CK(cuModuleLoadData(&mod, EMPTY_PTX));
  CUfunction empty; CK(cuModuleGetFunction(&empty, mod, "empty"));

  bench("stream_create_destroy", 500, [] { CUstream t; CK(cuStreamCreate(&t, 0)); CK(cuStreamDestroy(t)); });
  bench("stream_create_use_destroy", 500, [] { CUstream t; CK(cuStreamCreate(&t, 0)); cuStreamQuery(t); CK(cuStreamDestroy(t)); });
  bench("event_create_destroy", 500, [] { CUevent t; CK(cuEventCreate(&t, 0)); CK(cuEventDestroy(t)); });
  CUevent ev; CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
  bench("event_record_query", 5000, [&] { CK(cuEventRecord(ev, s)); cuEventQuery(ev); });
  CUevent e1, e2; CK(cuEventCreate(&e1, 0)); CK(cuEventCreate(&e2, 0));
  bench("event_pair_sync_elapsed", 2000, [&] { float ms; CK(cuEventRecord(e1, s)); CK(cuEventRecord(e2, s)); CK(cuEventSynchronize(e2)); CK(cuEventElapsedTime(&ms, e1, e2)); });
  bench("idle_stream_sync", 5000, [&] { CK(cuStreamSynchronize(s)); });
  // A plain allocation and its free, each on a current context, as cudaMalloc/cudaFree make them.
  bench("malloc_free", 500, [] { CUdeviceptr p; CK(cuMemAlloc(&p, 1 << 20)); CK(cuMemFree(p)); });
  bench("pool_async_alloc_free", 2000, [&] { CUdeviceptr p; CK(cuMemAllocAsync(&p, 1 << 20, s)); CK(cuMemFreeAsync(p, s)); });
  void* noargs[] = {nullptr};
  bench("empty_kernel_launch", 1, [&] { for (int i = 0; i < 5000; i++) CK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, noargs, nullptr)); CK(cuStreamSynchronize(s)); }, 7, 5000);
  bench("eager_100", 1, [&] { for (int i = 0; i < 100; i++) CK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, noargs, nullptr)); CK(cuStreamSynchronize(s)); }, 31);
  CUgraph g; CUgraphExec ge;
  CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
  for (int i = 0; i < 100; i++) CK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, noargs, nullptr));
  CK(cuStreamEndCapture(s, &g)); CK(cuGraphInstantiate(&ge, g, 0)); CK(cuGraphUpload(ge, s));
  bench("graph_100", 1, [&] { CK(cuGraphLaunch(ge, s)); CK(cuStreamSynchronize(s)); }, 31);

  std::mutex m; std::condition_variable cv; bool flag = false;
  struct Ctx { std::mutex* m; std::condition_variable* cv; bool* flag; } c{&m, &cv, &flag};
  bench("host_callback", 200, [&] {
    { std::lock_guard<std::mutex> l(m); flag = false; }
    CK(cuLaunchHostFunc(s, [](void* u) { auto* c = (Ctx*)u; std::lock_guard<std::mutex> l(*c->m); *c->flag = true; c->cv->notify_one(); }, &c));
    std::unique_lock<std::mutex> l(m); cv.wait(l, [&] { return flag; });
  });
  bench("nvtx_push_pop", 100000, [] { nvtxRangePushA("r"); nvtxRangePop(); });

  const size_t n = 256u << 20;
  CUdeviceptr d; CK(cuMemAlloc(&d, n));
  void* pinned; CK(cuMemHostAlloc(&pinned, n, CU_MEMHOSTALLOC_PORTABLE));
  std::vector<char> pageable(n, 1);
  auto bw = [&](const char* key, const std::function<void()>& copy) {
    copy(); CK(cuStreamSynchronize(s));
    std::vector<double> gbs;
    for (int i = 0; i < 7; i++) { double t0 = now_us(); copy(); CK(cuStreamSynchronize(s)); gbs.push_back(n / ((now_us() - t0) / 1e6) / 1e9); }
    std::sort(gbs.begin(), gbs.end());
    emit(key, gbs[gbs.size() / 2], "GB/s");
  };
  bw("h2d_pinned", [&] { CK(cuMemcpyHtoDAsync(d, pinned, n, s)); });
  bw("d2h_pinned", [&] { CK(cuMemcpyDtoHAsync(pinned, d, n, s)); });
  bw("h2d_pageable", [&] { CK(cuMemcpyHtoDAsync(d, pageable.data(), n, s)); });
  bw("d2h_pageable", [&] { CK(cuMemcpyDtoHAsync(pageable.data(), d, n, s)); });
  return 0;
}
