/* What both multisplit/auto scatter kernels do with a block's slice: its range of tiles,
 * and bringing a tile into shared memory with cp.async. */
#pragma once

#include <stdint.h>

#include "async_copy.cuh"

namespace pb_ms {

/* Block b's slice of a scatter kernel: keys [b * span, b * span + span) clipped to n, in
 * tiles of kTile keys (span is whole tiles; the last slices may start past n and hold
 * nothing). */
template <int kTile> struct SliceTiles {
    uint64_t begin, end;
    uint32_t tiles;
    __device__ SliceTiles(uint64_t n, uint64_t span) {
        begin = min((uint64_t)blockIdx.x * span, n);
        end = min(begin + span, n);
        tiles = (uint32_t)((end - begin + kTile - 1) / kTile);
    }
    /* where tile t starts, and how many keys it holds */
    __device__ uint64_t start(uint32_t t) const { return begin + (uint64_t)t * kTile; }
    __device__ uint32_t keys(uint32_t t) const {
        return (uint32_t)min((uint64_t)kTile, end - start(t));
    }
};

/* 16-byte piece c of a tile kept at piece c. */
struct InOrder {
    __device__ uint32_t operator()(uint32_t c) const { return c; }
};

/* The block's share (kThreads threads) of copying `bytes` (a multiple of 4) from src
 * (16-byte aligned) into a tile at dst, its 16-byte piece c going to piece place(c). The
 * tail past the last whole piece goes in words, so that no copy reads past the end of the
 * input. */
template <int kThreads, class Place = InOrder>
__device__ __forceinline__ void copy_tile_async(void *dst, const void *src, uint32_t bytes,
                                                Place place = {}) {
    char *to = static_cast<char *>(dst);
    const char *from = static_cast<const char *>(src);
    const uint32_t whole = bytes / 16 * 16;
    for (uint32_t at = threadIdx.x * 16; at < whole; at += kThreads * 16)
        pb::copy16_async(to + place(at / 16) * 16, from + at);
    for (uint32_t at = whole + threadIdx.x * 4; at < bytes; at += kThreads * 4)
        pb::copy_async<4>(to + place(at / 16) * 16 + at % 16, from + at);
}

} // namespace pb_ms
