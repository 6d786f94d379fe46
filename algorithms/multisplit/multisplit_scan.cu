/* From per-tile bin counts to write positions (see multisplit_common.cuh). */
#include <cub/block/block_scan.cuh>

#include "multisplit_common.cuh"

namespace pb_ms {
namespace {

/* One thread per bin walks down its column: exclusive prefix over tiles, and the total.
 * Neighbouring threads read neighbouring words of a row, so every step is coalesced. */
__global__ void column_scan_kernel(uint32_t *__restrict__ counts, int tiles, uint32_t bins,
                                   uint32_t *__restrict__ totals) {
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= bins) return;
    uint32_t running = 0;
    for (int t = 0; t < tiles; t++) {
        uint32_t c = counts[(uint64_t)t * bins + b];
        counts[(uint64_t)t * bins + b] = running;
        running += c;
    }
    totals[b] = running;
}

/* One block: offsets = exclusive scan of totals (bins <= 65536). */
constexpr int kStartThreads = 1024;
__global__ void __launch_bounds__(kStartThreads)
    bin_starts_kernel(const uint32_t *__restrict__ totals, uint32_t bins,
                      uint32_t *__restrict__ offsets) {
    using Scan = cub::BlockScan<uint32_t, kStartThreads>;
    __shared__ typename Scan::TempStorage scan_storage;
    const uint32_t per_thread = (bins + kStartThreads - 1) / kStartThreads;
    const uint32_t first = threadIdx.x * per_thread;
    uint32_t sum = 0;
    for (uint32_t i = first; i < first + per_thread && i < bins; i++) sum += totals[i];
    uint32_t start;
    Scan(scan_storage).ExclusiveSum(sum, start);
    for (uint32_t i = first; i < first + per_thread && i < bins; i++) {
        offsets[i] = start;
        start += totals[i];
    }
}

} // namespace

cudaError_t scan_counts(uint32_t *counts, int tiles, uint32_t bins, uint32_t *totals,
                        uint32_t *offsets, cudaStream_t stream) {
    column_scan_kernel<<<(bins + 255) / 256, 256, 0, stream>>>(counts, tiles, bins, totals);
    bin_starts_kernel<<<1, kStartThreads, 0, stream>>>(totals, bins, offsets);
    return cudaGetLastError();
}

} // namespace pb_ms
