/* A primitive's generated key input, on the host and on the device: the steps that every
 * primitive's make_input and free_input share (their extras stay their own). */
#ifndef PB_INPUT_KEYS_H
#define PB_INPUT_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "datagen.h"
#include "primbench.h"

/* Clears *in, sets its n and dtype from spec, and fills in->host with spec's keys. 0, or -1
 * with err saying how much host memory was missing. */
int pb_input_keys_host(struct pb_input *in, const struct pb_gen_spec *spec, char *err,
                       size_t err_len);
/* Allocates in->device and starts filling it with the same keys on the default stream.
 * Returns a cudaError_t value; pass it, after any further device work, to
 * pb_input_device_ready. */
int pb_input_keys_device(struct pb_input *in, const struct pb_gen_spec *spec);
/* Waits for the device input when cuda_error is cudaSuccess. 0, or -1 with err naming the
 * input's size and the CUDA error. */
int pb_input_device_ready(int cuda_error, const struct pb_input *in, char *err, size_t err_len);
/* n values 0, 1, ..., n - 1 (each key's input index), or NULL when out of memory. */
uint32_t *pb_index_values(uint64_t n);
/* Frees the keys of pb_input_keys_host and pb_input_keys_device (not in->extra) and clears
 * *in. */
void pb_input_keys_free(struct pb_input *in);

#endif
