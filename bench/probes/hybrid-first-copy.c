// #32.7: can a Buffer's first copy reach 50 GB/s if it is split between page-locking and staging?
// Page-locking (cuMemHostRegister) is bound by one thread's page-table work (~37 GB/s on the H200
// host, register-scaling.py), and staging by host memory, which it crosses three times (~30 GB/s).
// They are bound by different things, so both at once may add up: one thread registers the first
// part of the memory chunk by chunk and the copy engine reads it in place, while fill threads
// stage the rest through a pinned ring on a second stream.
//
//   gcc -O2 -fopenmp -I/usr/local/cuda/include bench/probes/hybrid-first-copy.c -lcuda -o /tmp/hybrid
//   /tmp/hybrid            (one GPU; prints a table, GB/s of the whole copy, best of 3)
#include <cuda.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_; cuGetErrorName(r_, &s_); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_); exit(1); } } while (0)

static const size_t N = 256u << 20;
static const size_t STAGE = 8u << 20;
static const int RING = 4;
static CUcontext ctx;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

struct reg_job {
  char *host;
  CUdeviceptr dev;
  size_t bytes, chunk;
  int d2h;
  CUstream s;
};

static void *register_part(void *p) {
  struct reg_job *j = p;
  CK(cuCtxSetCurrent(ctx));
  for (size_t off = 0; off < j->bytes; off += j->chunk) {
    size_t n = j->bytes - off < j->chunk ? j->bytes - off : j->chunk;
    CK(cuMemHostRegister(j->host + off, n, 0));
    if (j->d2h) CK(cuMemcpyDtoHAsync(j->host + off, j->dev + off, n, j->s));
    else CK(cuMemcpyHtoDAsync(j->dev + off, j->host + off, n, j->s));
  }
  return NULL;
}

static void unregister_part(char *host, size_t bytes, size_t chunk) {
  for (size_t off = 0; off < bytes; off += chunk) CK(cuMemHostUnregister(host + off));
}

static void par_copy(char *dst, const char *src, size_t n, int k) {
  size_t piece = (n / k + 4095) & ~(size_t)4095;
#pragma omp parallel for num_threads(k) schedule(static, 1)
  for (int i = 0; i < k; i++) {
    size_t off = (size_t)i * piece;
    if (off < n) memcpy(dst + off, src + off, (n - off < piece ? n - off : piece));
  }
}

// Stages [from, N) of host through the pinned ring on stream s, k fill threads.
static void stage_part(char *host, CUdeviceptr dev, size_t from, int k, int d2h, char **ring, CUevent *done, CUstream s) {
  int b = 0;
  if (!d2h) {
    for (size_t off = from; off < N; off += STAGE, b = (b + 1) % RING) {
      size_t n = N - off < STAGE ? N - off : STAGE;
      CK(cuEventSynchronize(done[b]));
      par_copy(ring[b], host + off, n, k);
      CK(cuMemcpyHtoDAsync(dev + off, ring[b], n, s));
      CK(cuEventRecord(done[b], s));
    }
  } else {
    // D2H: keep RING chunks in flight, drain each as it lands.
    size_t offs[RING];
    int inflight = 0;
    size_t next = from;
    int head = 0;
    while (next < N || inflight > 0) {
      while (next < N && inflight < RING) {
        int slot = (head + inflight) % RING;
        size_t n = N - next < STAGE ? N - next : STAGE;
        CK(cuMemcpyDtoHAsync(ring[slot], dev + next, n, s));
        CK(cuEventRecord(done[slot], s));
        offs[slot] = next;
        next += n;
        inflight++;
      }
      CK(cuEventSynchronize(done[head]));
      size_t n = N - offs[head] < STAGE ? N - offs[head] : STAGE;
      par_copy(host + offs[head], ring[head], n, k);
      head = (head + 1) % RING;
      inflight--;
    }
  }
}

int main(void) {
  CUdevice d;
  CK(cuInit(0));
  CK(cuDeviceGet(&d, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, d));
  CK(cuCtxSetCurrent(ctx));
  CUdeviceptr dev;
  CK(cuMemAlloc(&dev, N));
  char *ring[RING];
  CUevent done[RING];
  for (int i = 0; i < RING; i++) {
    CK(cuMemHostAlloc((void **)&ring[i], STAGE, 0));
    CK(cuEventCreate(&done[i], CU_EVENT_DISABLE_TIMING));
    CK(cuEventRecord(done[i], 0));
  }
  CUstream s1, s2;
  CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  char *pinned;
  CK(cuMemHostAlloc((void **)&pinned, N, 0));
  memset(pinned, 1, N);
  for (int d2h = 0; d2h < 2; d2h++) {
    double best = 0;
    for (int r = 0; r < 3; r++) {
      double t0 = now();
      if (d2h) CK(cuMemcpyDtoHAsync(pinned, dev, N, s1)); else CK(cuMemcpyHtoDAsync(dev, pinned, N, s1));
      CK(cuStreamSynchronize(s1));
      double g = N / (now() - t0) / 1e9;
      if (g > best) best = g;
    }
    printf("%s pinned: %.1f GB/s\n", d2h ? "D2H" : "H2D", best);
  }
  const double fracs[] = {0, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0};
  const int threads[] = {4, 8};
  const size_t chunks[] = {32u << 20, 64u << 20};
  for (int d2h = 0; d2h < 2; d2h++)
    for (int ci = 0; ci < 2; ci++)
      for (int ki = 0; ki < 2; ki++)
        for (int fi = 0; fi < 7; fi++) {
          double best = 0, unreg = 0;
          for (int r = 0; r < 3; r++) {
            char *host = aligned_alloc(4096, N);
            memset(host, 2 + r, N);  // touched, as a Buffer holding data (or one written before)
            size_t part = ((size_t)(fracs[fi] * N) / STAGE) * STAGE;
            struct reg_job j = {host, dev, part, chunks[ci], d2h, s1};
            pthread_t th;
            double t0 = now();
            if (part > 0) pthread_create(&th, NULL, register_part, &j);
            if (part < N) stage_part(host, dev, part, threads[ki], d2h, ring, done, s2);
            if (part > 0) pthread_join(th, NULL);
            CK(cuStreamSynchronize(s1));
            CK(cuStreamSynchronize(s2));
            double g = N / (now() - t0) / 1e9;
            if (g > best) best = g;
            double u0 = now();
            if (part > 0) unregister_part(host, part, chunks[ci]);
            unreg += (now() - u0) * 1e3 / 3;
            free(host);
          }
          printf("%s registered %3.0f%% (chunks %2zu MiB), staged rest with %d threads: %5.1f GB/s  (unregister after: %.1f ms)\n",
                 d2h ? "D2H" : "H2D", fracs[fi] * 100, chunks[ci] >> 20, threads[ki], best, unreg);
          fflush(stdout);
        }
  return 0;
}
