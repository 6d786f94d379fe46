/* Input generation on the GPU gives the same bytes as on the host, for every key type,
 * distribution and size. Exits 77 (skipped) where no GPU is usable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "datagen.h"
#include "gpu_skip.h"

#define CUDA_OK(call) assert_int_equal((call), cudaSuccess)

static const uint64_t SIZES[] = {1, 2, 15, 17, 1000, (1u << 20) + 3};

/* Generates spec on both sides and compares; byte_offset shifts the device pointer off
 * 16-byte alignment, which takes the kernel's one-element-per-store path. */
static void expect_device_matches_host(const struct pb_gen_spec *s, size_t byte_offset,
                                       cudaStream_t stream) {
    size_t size = pb_dtype_size(s->dtype), bytes = s->n * size;
    unsigned char *host = malloc(bytes + 1), *back = malloc(bytes + 1);
    assert_non_null(host);
    assert_non_null(back);
    unsigned char *device_base = NULL;
    CUDA_OK(cudaMalloc((void **)&device_base, bytes + byte_offset));
    /* A byte pattern no rule writes everywhere: an element left unwritten shows. */
    CUDA_OK(cudaMemset(device_base, 0xa5, bytes + byte_offset));
    void *device = device_base + byte_offset;

    pb_generate_host(s, host);
    assert_int_equal(pb_generate_device(s, device, stream), cudaSuccess);
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(back, device, bytes, cudaMemcpyDeviceToHost));

    if (memcmp(host, back, bytes) != 0) {
        for (uint64_t i = 0; i < s->n; i++) {
            if (memcmp(host + i * size, back + i * size, size) != 0) {
                fail_msg("%s %s n=%llu offset=%zu: element %llu differs", pb_dtype_name(s->dtype),
                         pb_dist_names[s->dist], (unsigned long long)s->n, byte_offset,
                         (unsigned long long)i);
            }
        }
    }
    CUDA_OK(cudaFree(device_base));
    free(host);
    free(back);
}

static void test_every_type_distribution_and_size(void **state) {
    (void)state;
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        for (int d = 0; d < PB_DIST_COUNT; d++) {
            for (size_t k = 0; k < sizeof SIZES / sizeof SIZES[0]; k++) {
                struct pb_gen_spec s = {.dtype = t,
                                        .dist = d,
                                        .n = SIZES[k],
                                        .seed = 2024,
                                        .stream = (uint64_t)k,
                                        .unique = 1000};
                expect_device_matches_host(&s, 0, stream);
            }
        }
    }
    CUDA_OK(cudaStreamDestroy(stream));
}

static void test_unaligned_output(void **state) {
    (void)state;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        for (int d = 0; d < PB_DIST_COUNT; d++) {
            struct pb_gen_spec s = {
                .dtype = t, .dist = d, .n = 100003, .seed = 7, .stream = 1, .unique = 5};
            expect_device_matches_host(&s, pb_dtype_size(t), 0);
        }
    }
}

/* Seeds, streams and unique counts reach the device the same way as the host. */
static void test_spec_fields_reach_device(void **state) {
    (void)state;
    const uint64_t seeds[] = {0, 1, UINT64_MAX};
    const uint64_t uniques[] = {0, 1, 3, 300, UINT64_MAX};
    for (size_t a = 0; a < sizeof seeds / sizeof seeds[0]; a++) {
        for (size_t b = 0; b < sizeof uniques / sizeof uniques[0]; b++) {
            for (int t = 0; t < PB_DTYPE_COUNT; t++) {
                struct pb_gen_spec s = {.dtype = t,
                                        .dist = PB_DIST_FEW_UNIQUE,
                                        .n = 4099,
                                        .seed = seeds[a],
                                        .stream = seeds[a] ^ 5,
                                        .unique = uniques[b]};
                expect_device_matches_host(&s, 0, 0);
            }
        }
    }
}

static void test_empty_launches_nothing(void **state) {
    (void)state;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        struct pb_gen_spec s = {.dtype = t, .dist = PB_DIST_UNIFORM, .n = 0, .seed = 1};
        assert_int_equal(pb_generate_device(&s, NULL, 0), cudaSuccess);
    }
    CUDA_OK(cudaDeviceSynchronize());
}

int main(void) {
    gpu_test_start(); /* exits 77 before any test runs */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_distribution_and_size),
        cmocka_unit_test(test_unaligned_output),
        cmocka_unit_test(test_spec_fields_reach_device),
        cmocka_unit_test(test_empty_launches_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
