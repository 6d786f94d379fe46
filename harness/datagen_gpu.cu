/* Deterministic input generation on the GPU: the rule of datagen_rules.h, element for
 * element the same as pb_generate_host. Compiled with -fmad=false, although the rule has
 * no multiply-add to contract. */
#include <cstdint>

#include <cuda_runtime.h>

#include "datagen.h"
#include "datagen_rules.h"

namespace {

constexpr int kThreadsPerBlock = 256;
/* Enough resident blocks to fill an SM; the grid strides over the rest. */
constexpr int kBlocksPerSm = 8;

template <typename T> __device__ __forceinline__ T element_value(const pb_gen_rule *r, uint64_t i);
template <> __device__ __forceinline__ uint8_t element_value(const pb_gen_rule *r, uint64_t i) {
    return (uint8_t)pb_int_value(r, i);
}
template <> __device__ __forceinline__ uint16_t element_value(const pb_gen_rule *r, uint64_t i) {
    return (uint16_t)pb_int_value(r, i);
}
template <> __device__ __forceinline__ uint32_t element_value(const pb_gen_rule *r, uint64_t i) {
    return (uint32_t)pb_int_value(r, i);
}
template <> __device__ __forceinline__ uint64_t element_value(const pb_gen_rule *r, uint64_t i) {
    return pb_int_value(r, i);
}
/* Signed types: the low bits of the two's-complement value, as on the host. */
template <> __device__ __forceinline__ int8_t element_value(const pb_gen_rule *r, uint64_t i) {
    return (int8_t)(uint8_t)pb_int_value(r, i);
}
template <> __device__ __forceinline__ int16_t element_value(const pb_gen_rule *r, uint64_t i) {
    return (int16_t)(uint16_t)pb_int_value(r, i);
}
template <> __device__ __forceinline__ int32_t element_value(const pb_gen_rule *r, uint64_t i) {
    return (int32_t)(uint32_t)pb_int_value(r, i);
}
template <> __device__ __forceinline__ int64_t element_value(const pb_gen_rule *r, uint64_t i) {
    return (int64_t)pb_int_value(r, i);
}
template <> __device__ __forceinline__ float element_value(const pb_gen_rule *r, uint64_t i) {
    return pb_f32_value(r, i);
}
template <> __device__ __forceinline__ double element_value(const pb_gen_rule *r, uint64_t i) {
    return pb_f64_value(r, i);
}

/* Each thread makes kVec consecutive elements and writes them with one 16-byte store
 * (kVec = 1 when out is not 16-byte aligned), so a warp writes 512 contiguous bytes. */
template <typename T, int kVec>
__global__ void __launch_bounds__(kThreadsPerBlock)
    generate_kernel(const pb_gen_rule rule, T *__restrict__ out) {
    const pb_gen_rule *r = &rule;
    const uint64_t first = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    const uint64_t nvec = r->n / kVec;
    for (uint64_t v = first; v < nvec; v += stride) {
        if constexpr (kVec == 1) {
            out[v] = element_value<T>(r, v);
        } else {
            union {
                uint4 raw;
                T elem[kVec];
            } pack;
#pragma unroll
            for (int k = 0; k < kVec; k++) {
                pack.elem[k] = element_value<T>(r, v * kVec + k);
            }
            reinterpret_cast<uint4 *>(out)[v] = pack.raw;
        }
    }
    if constexpr (kVec > 1) {
        const uint64_t tail_begin = nvec * kVec;
        if (first < r->n - tail_begin) {
            out[tail_begin + first] = element_value<T>(r, tail_begin + first);
        }
    }
}

template <typename T>
void launch(const pb_gen_rule &rule, void *d_out, cudaStream_t stream, int max_blocks) {
    constexpr int kVec = 16 / sizeof(T);
    T *out = static_cast<T *>(d_out);
    bool aligned = reinterpret_cast<uintptr_t>(d_out) % 16 == 0;
    uint64_t work_items = aligned ? rule.n / kVec : rule.n;
    /* The tail (fewer than kVec elements) is done by the first threads of the grid. */
    if (work_items < kVec) {
        work_items = kVec;
    }
    uint64_t blocks = (work_items + kThreadsPerBlock - 1) / kThreadsPerBlock;
    if (blocks > (uint64_t)max_blocks) {
        blocks = (uint64_t)max_blocks;
    }
    if (aligned) {
        generate_kernel<T, kVec><<<(unsigned)blocks, kThreadsPerBlock, 0, stream>>>(rule, out);
    } else {
        generate_kernel<T, 1><<<(unsigned)blocks, kThreadsPerBlock, 0, stream>>>(rule, out);
    }
}

} // namespace

extern "C" int pb_generate_device(const struct pb_gen_spec *s, void *d_out, cudaStream_t stream) {
    if (s->n == 0) {
        return (int)cudaGetLastError();
    }
    int device = 0, sm_count = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) {
        err = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
    }
    if (err != cudaSuccess) {
        return (int)err;
    }
    pb_gen_rule rule;
    pb_gen_prepare(s, &rule);
    int max_blocks = sm_count * kBlocksPerSm;
    switch (s->dtype) {
    case PB_U8:
        launch<uint8_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_U16:
        launch<uint16_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_U32:
        launch<uint32_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_U64:
        launch<uint64_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_I8:
        launch<int8_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_I16:
        launch<int16_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_I32:
        launch<int32_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_I64:
        launch<int64_t>(rule, d_out, stream, max_blocks);
        break;
    case PB_F32:
        launch<float>(rule, d_out, stream, max_blocks);
        break;
    case PB_F64:
        launch<double>(rule, d_out, stream, max_blocks);
        break;
    default:
        return (int)cudaErrorInvalidValue;
    }
    return (int)cudaGetLastError();
}
