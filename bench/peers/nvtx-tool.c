/* A stand-in NVTX tool for the bench's "with a tool attached" row: loaded by every NVTX user in
 * the process through NVTX_INJECTION64_PATH (cuda-node, CuPy and PyTorch alike), it takes the
 * push, pop and mark calls and counts them, as a light tool would, and reports the counts at
 * exit (so the bench shows it was attached). Built by bench/bench.ts with the C compiler. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include "nvtx3/nvToolsExt.h"

static atomic_ulong pushes, pops, marks;

static int push_ex(const nvtxEventAttributes_t *a) { (void)a; return (int)atomic_fetch_add(&pushes, 1); }
static int push_a(const char *m) { (void)m; return (int)atomic_fetch_add(&pushes, 1); }
static int pop(void) { return (int)atomic_fetch_add(&pops, 1); }
static void mark_ex(const nvtxEventAttributes_t *a) { (void)a; atomic_fetch_add(&marks, 1); }
static void mark_a(const char *m) { (void)m; atomic_fetch_add(&marks, 1); }

static void report(void) {
    fprintf(stderr, "nvtx-tool: %lu pushes, %lu pops, %lu marks\n", (unsigned long)pushes, (unsigned long)pops, (unsigned long)marks);
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable table = 0;
    unsigned int size = 0;
    if (cb == 0 || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size)) return 0;
    if (size <= NVTX_CBID_CORE_RangePop) return 0;
    *table[NVTX_CBID_CORE_MarkEx] = (NvtxFunctionPointer)mark_ex;
    *table[NVTX_CBID_CORE_MarkA] = (NvtxFunctionPointer)mark_a;
    *table[NVTX_CBID_CORE_RangePushEx] = (NvtxFunctionPointer)push_ex;
    *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)push_a;
    *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
    atexit(report);
    return 1;
}
