/* The five NVTX3 calls cuda-node makes, behind plain C functions Rust can declare. NVTX3 is
 * header-only: with no tool attached each call is a check of a function pointer; a tool is
 * loaded on first use from NVTX_INJECTION64_PATH. */
#include <stdint.h>
#include <string.h>
#include "nvtx3/nvToolsExt.h"

static void attributes(nvtxEventAttributes_t *a, const char *message, uint32_t argb, int has_color) {
    memset(a, 0, sizeof *a);
    a->version = NVTX_VERSION;
    a->size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    if (has_color) {
        a->colorType = NVTX_COLOR_ARGB;
        a->color = argb;
    }
    a->messageType = NVTX_MESSAGE_TYPE_ASCII;
    a->message.ascii = message;
}

void cuda_node_nvtx_mark(const char *message, uint32_t argb, int has_color) {
    nvtxEventAttributes_t a;
    attributes(&a, message, argb, has_color);
    nvtxMarkEx(&a);
}

int cuda_node_nvtx_range_push(const char *message, uint32_t argb, int has_color) {
    nvtxEventAttributes_t a;
    attributes(&a, message, argb, has_color);
    return nvtxRangePushEx(&a);
}

int cuda_node_nvtx_range_pop(void) {
    return nvtxRangePop();
}

uint64_t cuda_node_nvtx_range_start(const char *message, uint32_t argb, int has_color) {
    nvtxEventAttributes_t a;
    attributes(&a, message, argb, has_color);
    return nvtxRangeStartEx(&a);
}

void cuda_node_nvtx_range_end(uint64_t id) {
    nvtxRangeEnd(id);
}

/* Whether a tool listens: NVTX initialises (loading a tool from NVTX_INJECTION64_PATH, if any),
 * and with none every entry point is left null, so a push with no tool does nothing. The JS layer
 * asks once and, with no tool, skips its calls altogether. */
int cuda_node_nvtx_attached(void) {
    nvtxInitialize(0);
    return NVTX_VERSIONED_IDENTIFIER(nvtxGlobals).nvtxRangePushEx_impl_fnptr != 0;
}
