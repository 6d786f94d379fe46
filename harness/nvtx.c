/* NVTX3 is header-only: with no tool attached a push costs a branch. */
#include <stdarg.h>
#include <stdio.h>

#include <nvtx3/nvToolsExt.h>

#include "nvtx.h"

void pb_nvtx_push(const char *fmt, ...) {
    char name[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    nvtxRangePushA(name);
}

void pb_nvtx_pop(void) { nvtxRangePop(); }
