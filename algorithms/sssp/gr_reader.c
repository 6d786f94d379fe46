/* The DIMACS shortest-path format (.gr) of the 9th DIMACS Implementation Challenge:
 *   c free text          (comments, anywhere)
 *   p sp V E             (once, before any arc)
 *   a u v w              (E of them; 1 <= u, v <= V; 0 <= w)
 * Every malformed line is reported as "FILE:LINE: what", and reading stops there. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sssp.h"

#define LINE_MAX_CHARS 4096

/* Parses an unsigned decimal at *p (after blanks) into *out; -1 for none, a sign, or
 * overflow past max. A minus sign gives -2 (so that a negative weight can be named). */
static int parse_u64(const char **p, uint64_t max, uint64_t *out) {
    const char *s = *p;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '-') return -2;
    if (!isdigit((unsigned char)*s)) return -1;
    uint64_t v = 0;
    while (isdigit((unsigned char)*s)) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10) return -1;
        v = v * 10 + d;
        s++;
    }
    if (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r') return -1;
    *p = s;
    *out = v;
    return 0;
}

static bool rest_is_blank(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    return *s == '\0';
}

struct arcs {
    uint32_t *src, *dst, *w;
    uint64_t cap;
};

/* Room for at least `need` arcs (need <= m). The arrays grow as arcs arrive, not to the
 * header's E at once: a short file whose header claims 4 x 10^9 arcs would otherwise ask
 * for 48 GB before its first arc. -1 when out of memory (the arrays stay valid). */
static int arcs_reserve(struct arcs *a, uint64_t need, uint64_t m) {
    if (need <= a->cap) return 0;
    uint64_t cap = a->cap ? 2 * a->cap : 4096;
    if (cap < need) cap = need;
    if (cap > m) cap = m;
    uint32_t **arrays[] = {&a->src, &a->dst, &a->w};
    for (int i = 0; i < 3; i++) {
        uint32_t *grown = realloc(*arrays[i], cap * sizeof **arrays[i]);
        if (!grown) return -1;
        *arrays[i] = grown;
    }
    a->cap = cap;
    return 0;
}

static void arcs_free(struct arcs *a) {
    free(a->src);
    free(a->dst);
    free(a->w);
}

int pb_gr_read_stream(FILE *f, const char *name, struct pb_sssp_graph *g, char *err,
                      size_t err_len) {
    memset(g, 0, sizeof *g);
    char line[LINE_MAX_CHARS];
    uint64_t lineno = 0, n = 0, m = 0, seen = 0;
    bool have_header = false;
    struct arcs a = {0};
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            snprintf(err, err_len, "%s:%" PRIu64 ": line longer than %d characters", name, lineno,
                     LINE_MAX_CHARS - 2);
            goto out;
        }
        if (line[0] == 'c' || rest_is_blank(line)) continue;
        const char *p = line + 1;
        if (line[0] == 'p') {
            if (have_header) {
                snprintf(err, err_len, "%s:%" PRIu64 ": a second 'p' line", name, lineno);
                goto out;
            }
            while (*p == ' ' || *p == '\t') p++;
            if (strncmp(p, "sp", 2) != 0 || (p[2] != ' ' && p[2] != '\t')) {
                snprintf(err, err_len, "%s:%" PRIu64 ": bad header: expected 'p sp V E'", name,
                         lineno);
                goto out;
            }
            p += 2;
            if (parse_u64(&p, 0x7FFFFFFFu, &n) != 0 || n == 0 ||
                parse_u64(&p, 0xFFFFFFFEu, &m) != 0 || !rest_is_blank(p)) {
                snprintf(err, err_len,
                         "%s:%" PRIu64
                         ": bad header: expected 'p sp V E' with 1 <= V < 2^31, E < 2^32 - 1",
                         name, lineno);
                goto out;
            }
            have_header = true;
            continue;
        }
        if (line[0] != 'a') {
            snprintf(err, err_len, "%s:%" PRIu64 ": unknown line type '%c' (expected c, p or a)",
                     name, lineno, isprint((unsigned char)line[0]) ? line[0] : '?');
            goto out;
        }
        if (!have_header) {
            snprintf(err, err_len, "%s:%" PRIu64 ": arc before the 'p sp V E' header", name,
                     lineno);
            goto out;
        }
        if (seen == m) {
            snprintf(err, err_len, "%s:%" PRIu64 ": more arcs than the header's %" PRIu64, name,
                     lineno, m);
            goto out;
        }
        uint64_t u, v, w;
        if (parse_u64(&p, UINT64_MAX, &u) != 0 || parse_u64(&p, UINT64_MAX, &v) != 0) {
            snprintf(err, err_len, "%s:%" PRIu64 ": bad arc: expected 'a u v w'", name, lineno);
            goto out;
        }
        if (u < 1 || u > n || v < 1 || v > n) {
            snprintf(err, err_len,
                     "%s:%" PRIu64 ": arc %" PRIu64 " -> %" PRIu64
                     " has a vertex id out of range 1..%" PRIu64,
                     name, lineno, u, v, n);
            goto out;
        }
        int wrc = parse_u64(&p, 0xFFFFFFFEu, &w);
        if (wrc == -2) {
            snprintf(err, err_len, "%s:%" PRIu64 ": negative weight (Dijkstra needs w >= 0)", name,
                     lineno);
            goto out;
        }
        if (wrc != 0 || !rest_is_blank(p)) {
            snprintf(err, err_len,
                     "%s:%" PRIu64 ": bad arc: expected 'a u v w' with an integer weight 0 .. "
                     "4294967294",
                     name, lineno);
            goto out;
        }
        if (arcs_reserve(&a, seen + 1, m) != 0) {
            snprintf(err, err_len, "%s:%" PRIu64 ": cannot allocate %" PRIu64 " arcs", name, lineno,
                     seen + 1);
            goto out;
        }
        a.src[seen] = (uint32_t)(u - 1);
        a.dst[seen] = (uint32_t)(v - 1);
        a.w[seen] = (uint32_t)w;
        seen++;
    }
    if (ferror(f)) {
        snprintf(err, err_len, "%s:%" PRIu64 ": read error: %s", name, lineno, strerror(errno));
        goto out;
    }
    if (!have_header) {
        snprintf(err, err_len, "%s:%" PRIu64 ": no 'p sp V E' header", name, lineno);
        goto out;
    }
    if (seen != m) {
        snprintf(err, err_len,
                 "%s:%" PRIu64 ": the file ends after %" PRIu64 " arcs, the header says %" PRIu64
                 " (truncated?)",
                 name, lineno, seen, m);
        goto out;
    }
    rc = pb_sssp_graph_from_arcs((uint32_t)n, (uint32_t)m, a.src, a.dst, a.w, false, g, err,
                                 err_len);
out:
    arcs_free(&a);
    return rc;
}

int pb_gr_read(const char *path, struct pb_sssp_graph *g, char *err, size_t err_len) {
    FILE *f = fopen(path, "r");
    if (!f) {
        memset(g, 0, sizeof *g);
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = pb_gr_read_stream(f, path, g, err, err_len);
    fclose(f);
    return rc;
}

uint32_t pb_gr_peek_vertices(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[LINE_MAX_CHARS];
    uint32_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'c') continue;
        unsigned long long v = 0, m = 0;
        if (sscanf(line, "p sp %llu %llu", &v, &m) == 2 && v <= 0x7FFFFFFFu) n = (uint32_t)v;
        break;
    }
    fclose(f);
    return n;
}
