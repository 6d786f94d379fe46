/* A step's settled list in dijkstra-butterfly's one-block kernel, and the walk that
 * relaxes its arcs: entry j is a vertex, where its arcs begin in the CSR, and where they
 * begin in the step's flattened arc space (ascending in j). The list lives in the block's
 * shared memory; a wide step (wide_step.cuh) copies it to global memory for the grid. */
#pragma once

#include "search.cuh"
#include "sssp_device.cuh"

namespace pb_sssp {

constexpr int kListCapacity = 1024; /* one entry a thread of the block */
/* arcs a lane loads before any of their relaxations: one SM streams all the list's arcs,
 * and only loads in flight hide the latency */
constexpr int kListArcBatch = 8;
constexpr uint32_t kListChunk = 32 * kListArcBatch; /* arcs a warp takes at once */

/* The entry that holds flattened arc i: the largest j in [from, count) whose offset is at
 * most i (list.offset[from] <= i). A first test of the next entry (dense rows) gave wrong
 * entries on the H200 in some builds of session 12, cause not found: plain binary search
 * only. */
template <class List>
__device__ __forceinline__ uint32_t locate(const List &list, uint32_t i, uint32_t from,
                                           uint32_t count) {
    return from + pb::last_at_or_below(list.offset + from, count - from, i);
}

/* The list as the one-block kernel builds it in shared memory. */
struct SettledList {
    uint32_t vertex[kListCapacity], row[kListCapacity], offset[kListCapacity];
    /* (vertices << 32 | arcs) so far, one word a step parity: one atomic gives an entry
     * both its index and its offset, so offsets ascend with indices */
    unsigned long long fill[2];
};

/* A copy of the list's arrays in global memory, for the grid. */
struct GlobalList {
    const uint32_t *vertex, *row, *offset;
};

/* Relaxes the list's flattened arcs (count entries, total arcs) in [first, limit) that fall in this
 * warp's chunks: the chunks start at first, first + stride, ... (kListChunk arcs each, cut at
 * limit). relax(v, w, tail) does one arc; tail() names its tail, asked for only when it lowers. The
 * entry holding a chunk's first arc stays in registers (the same in every lane) until a chunk
 * starts past its end. A chunk inside one entry, the common case on dense graphs, is kListArcBatch
 * coalesced loads a lane from one base, and its tail is known. Every lane of the warp calls it. */
template <class List, class Relax>
__device__ __forceinline__ void relax_list(const List &list, uint32_t count, uint32_t total,
                                           const pb_sssp_device_graph &g, uint32_t first,
                                           uint32_t stride, uint32_t limit, Relax &&relax) {
    const uint32_t lane = threadIdx.x % 32;
    if (first >= limit) return;
    uint32_t j = 0, at = list.row[0], begin = 0;
    uint32_t stop = count > 1 ? list.offset[1] : total;
    for (uint32_t c0 = first; c0 < limit; c0 += stride) {
        uint32_t col[kListArcBatch], w[kListArcBatch];
        if (c0 >= stop) {
            j = locate(list, c0, j + 1, count);
            at = list.row[j];
            begin = list.offset[j];
            stop = j + 1 < count ? list.offset[j + 1] : total;
        }
        if (c0 + kListChunk <= stop && c0 + kListChunk <= limit) {
            const uint32_t e = at + (c0 - begin) + lane;
#pragma unroll
            for (int b = 0; b < kListArcBatch; b++) {
                col[b] = __ldg(&g.col[e + 32 * b]);
                w[b] = __ldg(&g.w[e + 32 * b]);
            }
#pragma unroll
            for (int b = 0; b < kListArcBatch; b++)
                relax(col[b], w[b], [&] { return list.vertex[j]; });
            continue;
        }
#pragma unroll
        for (int b = 0; b < kListArcBatch; b++) {
            const uint32_t i = c0 + lane + 32 * b;
            if (i < limit) {
                const uint32_t k = locate(list, i, j, count);
                const uint32_t e = list.row[k] + (i - list.offset[k]);
                col[b] = __ldg(&g.col[e]);
                w[b] = __ldg(&g.w[e]);
            }
        }
#pragma unroll
        for (int b = 0; b < kListArcBatch; b++) {
            const uint32_t i = c0 + lane + 32 * b;
            if (i < limit) /* the arc's tail looked up again only when it lowers */
                relax(col[b], w[b], [&] { return list.vertex[locate(list, i, j, count)]; });
        }
    }
}

} // namespace pb_sssp
