// A while node whose body kernel sets its condition with cudaGraphSetConditional, launched and
// synchronized N times, with no cuda-node in the process: tells whether the
// CUDA_ERROR_LAUNCH_FAILED seen in graph-builder.spec under other processes' load is the
// driver's or ours. nvcc -arch=native -o /tmp/while-probe while-under-load.cu -lcuda
// `while-probe N LIMIT`: N cases of LIMIT iterations (1000). Prints one line: cases run, failures,
// the first error.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void step(cudaGraphConditionalHandle h, int *counter, int limit) {
  int n = ++*counter;
  cudaGraphSetConditional(h, n < limit ? 1 : 0);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  int limit = argc > 2 ? atoi(argv[2]) : 1000;
  int *counter;
  if (cudaMalloc(&counter, 4) != cudaSuccess) return 2;
  int failed = 0, ran = 0;
  const char *first = "";
  for (int i = 0; i < n; i++, ran++) {
    cudaGraph_t graph;
    cudaGraphCreate(&graph, 0);
    cudaGraphConditionalHandle h;
    cudaGraphConditionalHandleCreate(&h, graph, 1, cudaGraphCondAssignDefault);
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    cudaGraphNode_t node;
    #if CUDART_VERSION >= 13000
    cudaError_t added = cudaGraphAddNode(&node, graph, nullptr, nullptr, 0, &cp);
#else
    cudaError_t added = cudaGraphAddNode(&node, graph, nullptr, 0, &cp);
#endif
    if (added != cudaSuccess) { first = "add"; failed++; break; }
    cudaGraph_t body = cp.conditional.phGraph_out[0];
    void *args[] = {&h, &counter, &limit};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)step;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(1);
    kp.kernelParams = args;
    cudaGraphNode_t k;
    cudaGraphAddKernelNode(&k, body, nullptr, 0, &kp);
    cudaGraphExec_t exec;
    if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) { first = "instantiate"; failed++; break; }
    cudaMemset(counter, 0, 4);
    cudaGraphLaunch(exec, 0);
    cudaError_t e = cudaStreamSynchronize(0);
    int v = -1;
    if (e == cudaSuccess) cudaMemcpy(&v, counter, 4, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess || v != limit) {
      failed++;
      first = e != cudaSuccess ? cudaGetErrorName(e) : "wrong count";
      printf("{\"i\":%d,\"error\":\"%s\",\"value\":%d}\n", i, first, v);
      if (e != cudaSuccess) { ran++; break; }
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  printf("{\"probe\":\"while-under-load\",\"limit\":%d,\"cases\":%d,\"failed\":%d,\"first\":\"%s\"}\n", limit, ran, failed, first);
  return failed ? 1 : 0;
}
