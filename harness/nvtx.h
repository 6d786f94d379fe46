/* NVTX ranges that name what the harness is doing, so Nsight shows each case. */
#ifndef PB_NVTX_H
#define PB_NVTX_H

/* Pushes a range named by a printf format; pair each push with pb_nvtx_pop. */
void pb_nvtx_push(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pb_nvtx_pop(void);

#endif
