/* An NVTX injection library for tests: loaded through NVTX_INJECTION64_PATH, it
 * appends "push NAME" and "pop" lines to the file named by PB_NVTX_LOG, so a test can
 * check the ranges a program opens without a GPU or a profiler. */
#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

static FILE *log_file;

static int record_push(const char *name) {
    if (log_file) fprintf(log_file, "push %s\n", name);
    return 0;
}

static int record_push_ex(const nvtxEventAttributes_t *attr) {
    if (log_file && attr->messageType == NVTX_MESSAGE_TYPE_ASCII)
        fprintf(log_file, "push %s\n", attr->message.ascii);
    return 0;
}

static int record_pop(void) {
    if (log_file) fprintf(log_file, "pop\n");
    return 0;
}

__attribute__((visibility("default"))) int
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
    const char *path = getenv("PB_NVTX_LOG");
    if (!path || !(log_file = fopen(path, "w"))) return 0;
    const NvtxExportTableCallbacks *callbacks = get_table(NVTX_ETID_CALLBACKS);
    NvtxFunctionTable core = NULL;
    unsigned int last_slot = 0; /* the highest callback id in the table */
    if (!callbacks || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &last_slot))
        return 0;
    if (last_slot < NVTX_CBID_CORE_RangePop) return 0;
    *core[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)record_push;
    *core[NVTX_CBID_CORE_RangePushEx] = (NvtxFunctionPointer)record_push_ex;
    *core[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)record_pop;
    return 1; /* success: NVTX routes the core calls here */
}
