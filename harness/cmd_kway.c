/* bench kway-merge and bench kway-gen: the seed's k-way merge programs (`./k_way_merge k
 * sizes.dat elements.dat results.dat` and `./test k max_n`) on its file format
 * (merge_files.h).
 *
 * This file is in the core library, not only in the bench executable, so that tests call
 * the commands in-process. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "datagen.h"
#include "device.h"
#include "merge_files.h"
#include "merge_gpu.h"
#include "sort.h"
#include "suggest.h"

static const char merge_usage[] =
    "usage: bench kway-merge [--dtype T] [--device N] [--check] K SIZES ELEMENTS RESULTS\n"
    "\n"
    "Merges K sorted lists on the GPU (merge/path) and writes the merged list to RESULTS, as\n"
    "the seed's `./k_way_merge k sizes.dat elements.dat results.dat` does. SIZES holds K list\n"
    "sizes (32-bit signed little-endian integers), ELEMENTS the lists one after another (each\n"
    "ascending, little-endian keys), RESULTS gets the merged keys; no headers. RESULTS is\n"
    "written beside its name and renamed over it, never left half-written. Prints one line:\n"
    "n, k, the key type and the device time of the merge (copies not included).\n"
    "\n"
    "  --dtype T   key type: u32, i32, f32, u64 or f64 (default f64, the seed's)\n"
    "  --device N  the GPU to use (default 0)\n"
    "  --check     also merge on the CPU (a heap of list heads) and compare; RESULTS is not\n"
    "              written when they differ\n"
    "\n"
    "Exit codes: 0 ok; 1 no GPU, a CUDA error, out of memory or a --check mismatch; 2 bad\n"
    "usage or input (one line naming the file and what is wrong: a length that does not fit K\n"
    "or the sizes, a negative size, an unsorted list, a NaN).\n";

static const char gen_usage[] =
    "usage: bench kway-gen [--dtype T] [--seed S] [--sizes MODE] [--distribution D]\n"
    "                      K MAX_N SIZES ELEMENTS\n"
    "\n"
    "Writes K sorted lists in the format bench kway-merge reads, as the seed's `./test k max_n`\n"
    "does: list sizes uniform in 1..MAX_N, keys drawn from a distribution, each list sorted.\n"
    "The same arguments give the same files. Both files are written beside their names and\n"
    "renamed over them once both are whole.\n"
    "\n"
    "  --dtype T         key type: u32, i32, f32, u64 or f64 (default f64, the seed's)\n"
    "  --seed S          seed of the sizes and the keys (default 1)\n"
    "  --sizes MODE      uniform: each size uniform in 1..MAX_N (default). equal, zipf, empty:\n"
    "                    K x MAX_N / 2 keys in all, in equal lists, in lists of Zipf sizes (rank\n"
    "                    r gets ~1/r), or in equal lists with a quarter of the lists empty\n"
    "  --distribution D  the keys before sorting: uniform (default), normal, binomial, zipf,\n"
    "                    sorted, reverse, nearly-sorted, few-unique, all-equal, skewed\n"
    "\n"
    "Exit codes: 0 ok, 1 out of memory, 2 bad usage or a file that cannot be written.\n";

/* Distinct values of --distribution few-unique. */
#define FEW_UNIQUE 16
/* The generator's stream for the keys: any constant, so one seed gives one file. */
#define KWAY_GEN_STREAM 0x6b776179u

/* "bench: CMD: message" and the usage on stderr; returns 2. */
static int usage_fail(const char *cmd, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int usage_fail(const char *cmd, const char *text, const char *fmt, ...) {
    fprintf(stderr, "bench: %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", text);
    return 2;
}

/* A decimal integer in [min, max]. Digits only: strtoull would take "-1" as 2^64 - 1. */
static bool parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
    uint64_t v = 0;
    if (!*s) return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = 10 * v + d;
    }
    *out = v;
    return v >= min && v <= max;
}

static bool parse_dtype(const char *s, enum pb_dtype *t) {
    return pb_dtype_parse(s, t) == 0 && pb_merge_files_dtype_ok(*t);
}

/* Index of s in a NULL-terminated list of names, or -1. */
static int find_name(const char *s, const char *const *names) {
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

static size_t count_names(const char *const *names) {
    size_t n = 0;
    while (names[n]) n++;
    return n;
}

/* True when writing `out` would replace the input `in`: the same name or the same file. */
static bool same_file(const char *in, const char *out) {
    struct stat a, b;
    if (strcmp(in, out) == 0) return true;
    return stat(in, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int refuse_same(const char *cmd, const char *out, const char *what) {
    char shown[1024];
    pb_merge_show_path(out, shown, sizeof shown);
    fprintf(stderr, "bench: %s: %s: is also the %s file; it would be replaced\n", cmd, shown, what);
    return 2;
}

/* ---- bench kway-merge --------------------------------------------------------------- */

/* Merges on the CPU too and compares key by key. 0 when equal; 1 with a message. */
static int check_against_cpu(const struct pb_merge_lists *l, const void *gpu) {
    size_t ks = pb_dtype_size(l->dtype);
    void *cpu = malloc(l->n ? l->n * ks : 1);
    if (!cpu || pb_merge_cpu_heap(l->dtype, l->keys, NULL, l->offsets, l->k, cpu, NULL) != 0) {
        free(cpu);
        fprintf(stderr, "bench: kway-merge: --check: out of memory for the CPU merge\n");
        return 1;
    }
    int rc = 0;
    for (uint64_t i = 0; i < l->n; i++) {
        if (memcmp((const char *)gpu + i * ks, (const char *)cpu + i * ks, ks) == 0) continue;
        char g[64], c[64];
        pb_merge_format_key(l->dtype, gpu, i, g, sizeof g);
        pb_merge_format_key(l->dtype, cpu, i, c, sizeof c);
        fprintf(stderr,
                "bench: kway-merge: --check: the GPU and CPU merges differ at key %" PRIu64
                " of %" PRIu64 ": GPU %s, CPU %s\n",
                i, l->n, g, c);
        rc = 1;
        break;
    }
    free(cpu);
    return rc;
}

static int merge_and_write(const struct pb_merge_lists *l, int device, bool check,
                           const char *results) {
    struct pb_device_info info;
    if (pb_device_open(device, &info) != 0) {
        fprintf(stderr, "bench: kway-merge: %s\n", info.unavailable_reason);
        return 1;
    }
    size_t ks = pb_dtype_size(l->dtype);
    void *out = malloc(l->n ? l->n * ks : 1);
    if (!out) {
        fprintf(stderr, "bench: kway-merge: out of memory for the merged list (%" PRIu64 " keys)\n",
                l->n);
        return 1;
    }
    double gpu_ms = 0;
    char err[1024] = "";
    /* All lists empty: nothing to merge, and no zero-byte device buffers to ask for. */
    if (l->n > 0 && pb_merge_on_gpu(l->dtype, l->keys, NULL, l->offsets, l->k, out, NULL, &gpu_ms,
                                    err, sizeof err) != 0) {
        fprintf(stderr, "bench: kway-merge: the GPU merge failed: %s\n", err);
        free(out);
        return 1;
    }
    /* A wrong result never lands where a good one is expected. */
    if (check && check_against_cpu(l, out) != 0) {
        free(out);
        return 1;
    }
    int rc = pb_merge_write_result(results, l->dtype, out, l->n, err, sizeof err);
    free(out);
    if (rc != 0) {
        fprintf(stderr, "bench: kway-merge: %s\n", err);
        return 2;
    }
    double gkeys = gpu_ms > 0 ? (double)l->n / (gpu_ms * 1e6) : 0;
    printf("n=%" PRIu64 " k=%" PRIu32 " dtype=%s backend=merge/path device=%d gpu_ms=%.4f "
           "gkeys_per_s=%.3f check=%s\n",
           l->n, l->k, pb_dtype_name(l->dtype), device, gpu_ms, gkeys, check ? "ok" : "off");
    return 0;
}

int pb_cmd_kway_merge(int argc, char **argv) {
    static const char cmd[] = "kway-merge";
    if (pb_wants_help(argc, argv, merge_usage)) return 0;
    enum pb_dtype t = PB_F64;
    uint64_t device = 0, k = 0;
    bool check = false;
    const char *pos[4];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool valued = strcmp(a, "--dtype") == 0 || strcmp(a, "--device") == 0;
        if (valued && i + 1 >= argc) return usage_fail(cmd, merge_usage, "%s needs a value", a);
        if (strcmp(a, "--dtype") == 0) {
            if (!parse_dtype(argv[++i], &t)) {
                return usage_fail(cmd, merge_usage,
                                  "--dtype: '%s' is not a merge key type (u32, i32, f32, u64, f64)",
                                  argv[i]);
            }
        } else if (strcmp(a, "--device") == 0) {
            if (!parse_uint(argv[++i], 0, 1024, &device)) {
                return usage_fail(cmd, merge_usage, "--device: '%s' is not a device number",
                                  argv[i]);
            }
        } else if (strcmp(a, "--check") == 0) {
            check = true;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_fail(cmd, merge_usage, "unknown option '%s'", a);
        } else if (npos == 4) {
            return usage_fail(cmd, merge_usage, "one argument too many ('%s')", a);
        } else {
            pos[npos++] = a;
        }
    }
    if (npos < 4) {
        return usage_fail(cmd, merge_usage, "K, SIZES, ELEMENTS and RESULTS are needed (%d given)",
                          npos);
    }
    if (!parse_uint(pos[0], 1, UINT32_MAX, &k)) {
        return usage_fail(cmd, merge_usage, "K: '%s' is not a number of lists (1..%" PRIu32 ")",
                          pos[0], UINT32_MAX);
    }
    if (same_file(pos[1], pos[3])) return refuse_same(cmd, pos[3], "sizes");
    if (same_file(pos[2], pos[3])) return refuse_same(cmd, pos[3], "elements");
    struct pb_merge_lists lists;
    char err[1024];
    if (pb_merge_read_files(pos[1], pos[2], (uint32_t)k, t, &lists, err, sizeof err) != 0) {
        fprintf(stderr, "bench: %s: %s\n", cmd, err);
        return 2;
    }
    int rc = merge_and_write(&lists, (int)device, check, pos[3]);
    pb_merge_lists_free(&lists);
    return rc;
}

/* ---- bench kway-gen ----------------------------------------------------------------- */

/* Sorts every list in place, lists spread over the cores. Each thread's scratch grows to
 * the longest list it sorts, not the longest of all: one huge Zipf list costs one scratch.
 * 0, or -1 when out of memory. */
static int sort_lists(struct pb_merge_lists *l) {
    size_t ks = pb_dtype_size(l->dtype);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        void *scratch = NULL;
        size_t have = 0;
#pragma omp for schedule(dynamic, 64)
        for (int64_t i = 0; i < (int64_t)l->k; i++) {
            uint64_t begin = l->offsets[i], count = l->offsets[i + 1] - begin;
            size_t need = pb_sort_cpu_scratch_bytes(count);
            if (failed || count < 2) continue;
            if (need > have) {
                free(scratch);
                scratch = malloc(need);
                have = scratch ? need : 0;
            }
            if (!scratch) {
                failed = 1;
                continue;
            }
            pb_sort_cpu_run(l->dtype, false, (char *)l->keys + begin * ks, NULL, count, scratch);
        }
        free(scratch);
    }
    return failed ? -1 : 0;
}

/* Makes the lists and writes them. Returns the exit code. */
static int generate(struct pb_merge_lists *l, enum pb_merge_sizes how, uint64_t max_n,
                    enum pb_dist dist, uint64_t seed, const char *sizes, const char *elements) {
    l->offsets = malloc(((size_t)l->k + 1) * sizeof *l->offsets);
    if (!l->offsets) {
        fprintf(stderr, "bench: kway-gen: out of memory for %" PRIu32 " lists\n", l->k);
        return 1;
    }
    /* k <= 2^32 and max_n < 2^31: the product fits. */
    uint64_t total = how == PB_MERGE_SIZES_UNIFORM ? 0 : (uint64_t)l->k * max_n / 2;
    l->n = pb_merge_make_offsets(how, l->k, total, how == PB_MERGE_SIZES_UNIFORM ? max_n : 0, seed,
                                 l->offsets);
    size_t ks = pb_dtype_size(l->dtype);
    l->keys = l->n <= SIZE_MAX / ks ? malloc(l->n ? l->n * ks : 1) : NULL;
    if (!l->keys) {
        fprintf(stderr, "bench: kway-gen: out of memory for %" PRIu64 " keys\n", l->n);
        return 1;
    }
    struct pb_gen_spec spec = {.dtype = l->dtype,
                               .dist = dist,
                               .n = l->n,
                               .seed = seed,
                               .stream = KWAY_GEN_STREAM,
                               .unique = FEW_UNIQUE};
    pb_generate_host(&spec, l->keys);
    if (sort_lists(l) != 0) {
        fprintf(stderr, "bench: kway-gen: out of memory for sorting the lists\n");
        return 1;
    }
    char err[1024];
    if (pb_merge_write_files(sizes, elements, l, err, sizeof err) != 0) {
        fprintf(stderr, "bench: kway-gen: %s\n", err);
        return 2;
    }
    char s_shown[1024], e_shown[1024];
    pb_merge_show_path(sizes, s_shown, sizeof s_shown);
    pb_merge_show_path(elements, e_shown, sizeof e_shown);
    fprintf(stderr, "bench: kway-gen: wrote %" PRIu32 " lists, %" PRIu64 " %s keys, to %s and %s\n",
            l->k, l->n, pb_dtype_name(l->dtype), s_shown, e_shown);
    return 0;
}

int pb_cmd_kway_gen(int argc, char **argv) {
    static const char cmd[] = "kway-gen";
    if (pb_wants_help(argc, argv, gen_usage)) return 0;
    enum pb_dtype t = PB_F64;
    enum pb_merge_sizes how = PB_MERGE_SIZES_UNIFORM;
    enum pb_dist dist = PB_DIST_UNIFORM;
    uint64_t seed = 1, k = 0, max_n = 0;
    const char *pos[4];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool valued = strcmp(a, "--dtype") == 0 || strcmp(a, "--seed") == 0 ||
                      strcmp(a, "--sizes") == 0 || strcmp(a, "--distribution") == 0;
        if (valued && i + 1 >= argc) return usage_fail(cmd, gen_usage, "%s needs a value", a);
        const char *v = valued ? argv[++i] : NULL;
        if (strcmp(a, "--dtype") == 0) {
            if (!parse_dtype(v, &t)) {
                return usage_fail(cmd, gen_usage,
                                  "--dtype: '%s' is not a merge key type (u32, i32, f32, u64, f64)",
                                  v);
            }
        } else if (strcmp(a, "--seed") == 0) {
            if (!parse_uint(v, 0, UINT64_MAX, &seed)) {
                return usage_fail(cmd, gen_usage, "--seed: '%s' is not a non-negative integer", v);
            }
        } else if (strcmp(a, "--sizes") == 0 || strcmp(a, "--distribution") == 0) {
            bool sizes = a[2] == 's';
            const char *const *names = sizes ? pb_merge_sizes_names : pb_dist_names;
            int found = find_name(v, names);
            if (found < 0) {
                const char *close = pb_suggest(v, names, count_names(names));
                return usage_fail(cmd, gen_usage, "%s: unknown %s '%s'%s%s%s", a,
                                  sizes ? "sizes mode" : "distribution", v,
                                  close ? " (did you mean '" : "", close ? close : "",
                                  close ? "'?)" : "");
            }
            if (sizes) {
                how = (enum pb_merge_sizes)found;
            } else {
                dist = (enum pb_dist)found;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_fail(cmd, gen_usage, "unknown option '%s'", a);
        } else if (npos == 4) {
            return usage_fail(cmd, gen_usage, "one argument too many ('%s')", a);
        } else {
            pos[npos++] = a;
        }
    }
    if (npos < 4) {
        return usage_fail(cmd, gen_usage, "K, MAX_N, SIZES and ELEMENTS are needed (%d given)",
                          npos);
    }
    if (!parse_uint(pos[0], 1, UINT32_MAX, &k)) {
        return usage_fail(cmd, gen_usage, "K: '%s' is not a number of lists (1..%" PRIu32 ")",
                          pos[0], UINT32_MAX);
    }
    /* A size is a 32-bit signed integer in sizes.dat. */
    if (!parse_uint(pos[1], 1, INT32_MAX, &max_n)) {
        return usage_fail(cmd, gen_usage, "MAX_N: '%s' is not a list size (1..%d)", pos[1],
                          INT32_MAX);
    }
    if (same_file(pos[2], pos[3])) return refuse_same(cmd, pos[3], "sizes");
    struct pb_merge_lists lists = {.dtype = t, .k = (uint32_t)k};
    int rc = generate(&lists, how, max_n, dist, seed, pos[2], pos[3]);
    pb_merge_lists_free(&lists);
    return rc;
}
