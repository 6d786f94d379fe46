/* One run of keys sorted on one CPU core: keys mapped to order-preserving unsigned bits,
 * insertion sort for short runs, an LSD radix sort by bytes otherwise (passes whose byte
 * is the same in every key are skipped), and the bits mapped back. */
#include <string.h>

#include "sort.h"

#define INSERTION_MAX 32

static uint64_t to_ordered(enum pb_dtype t, uint64_t bits) {
    switch (t) {
    case PB_I32:
        return (uint32_t)bits ^ 0x80000000u;
    case PB_I64:
        return bits ^ 0x8000000000000000ull;
    case PB_F32:
        return (bits & 0x80000000u) ? (uint32_t)~bits : (uint32_t)(bits | 0x80000000u);
    case PB_F64:
        return (bits >> 63) ? ~bits : bits | 0x8000000000000000ull;
    default:
        return bits;
    }
}

static uint64_t from_ordered(enum pb_dtype t, uint64_t o) {
    switch (t) {
    case PB_I32:
        return (uint32_t)o ^ 0x80000000u;
    case PB_I64:
        return o ^ 0x8000000000000000ull;
    case PB_F32:
        return (o & 0x80000000u) ? (uint32_t)(o & 0x7fffffffu) : (uint32_t)~o;
    case PB_F64:
        return (o >> 63) ? o & 0x7fffffffffffffffull : ~o;
    default:
        return o;
    }
}

static uint64_t load_bits(const void *keys, size_t ks, uint64_t i) {
    if (ks == 4) {
        uint32_t v;
        memcpy(&v, (const char *)keys + i * 4, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)keys + i * 8, 8);
    return v;
}

uint64_t pb_sort_ordered_bits(enum pb_dtype t, bool descending, const void *keys, uint64_t i) {
    size_t ks = pb_dtype_size(t);
    uint64_t o = to_ordered(t, load_bits(keys, ks, i));
    if (descending) o = ks == 4 ? (uint32_t)~o : ~o;
    return o;
}

size_t pb_sort_cpu_scratch_bytes(uint64_t count) {
    return (size_t)count * 2 * (sizeof(uint64_t) + sizeof(uint32_t));
}

static void insertion_sort(uint64_t *k, uint32_t *v, uint64_t count) {
    for (uint64_t i = 1; i < count; i++) {
        uint64_t key = k[i];
        uint32_t val = v ? v[i] : 0;
        uint64_t j = i;
        for (; j > 0 && k[j - 1] > key; j--) {
            k[j] = k[j - 1];
            if (v) v[j] = v[j - 1];
        }
        k[j] = key;
        if (v) v[j] = val;
    }
}

/* Sorts k (and v) by their low `bytes` bytes; returns where the result lies (k or tk). */
static uint64_t *radix_sort(uint64_t *k, uint32_t *v, uint64_t *tk, uint32_t *tv, uint64_t count,
                            int bytes, uint32_t **v_out) {
    for (int b = 0; b < bytes; b++) {
        uint64_t counts[256] = {0};
        int shift = 8 * b;
        for (uint64_t i = 0; i < count; i++) counts[(k[i] >> shift) & 0xff]++;
        if (counts[(k[0] >> shift) & 0xff] == count) continue; /* one digit: nothing moves */
        uint64_t start = 0;
        for (int d = 0; d < 256; d++) {
            uint64_t c = counts[d];
            counts[d] = start;
            start += c;
        }
        for (uint64_t i = 0; i < count; i++) {
            uint64_t to = counts[(k[i] >> shift) & 0xff]++;
            tk[to] = k[i];
            if (v) tv[to] = v[i];
        }
        uint64_t *sk = k;
        k = tk;
        tk = sk;
        uint32_t *sv = v;
        v = tv;
        tv = sv;
    }
    *v_out = v;
    return k;
}

void pb_sort_cpu_run(enum pb_dtype t, bool descending, void *keys, uint32_t *values, uint64_t count,
                     void *scratch) {
    if (count < 2) return;
    size_t ks = pb_dtype_size(t);
    uint64_t *k = scratch, *tk = k + count;
    uint32_t *v = values ? (uint32_t *)(tk + count) : NULL, *tv = values ? v + count : NULL;
    for (uint64_t i = 0; i < count; i++) k[i] = pb_sort_ordered_bits(t, descending, keys, i);
    if (values) memcpy(v, values, count * sizeof *v);
    uint64_t *sorted = k;
    uint32_t *sorted_values = v;
    if (count <= INSERTION_MAX)
        insertion_sort(k, v, count);
    else
        sorted = radix_sort(k, v, tk, tv, count, (int)ks, &sorted_values);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t o = descending ? (ks == 4 ? (uint32_t)~sorted[i] : ~sorted[i]) : sorted[i];
        uint64_t bits = from_ordered(t, o);
        if (ks == 4) {
            uint32_t b32 = (uint32_t)bits;
            memcpy((char *)keys + i * 4, &b32, 4);
        } else {
            memcpy((char *)keys + i * 8, &bits, 8);
        }
    }
    if (values) memcpy(values, sorted_values, count * sizeof *values);
}
