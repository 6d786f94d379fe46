/* Expanding a config into its cases. Each zip group is one dimension of the cross
 * product and each other axis another; dimensions are ordered by their first axis in the
 * primitive's order, the first outermost, so cases that share an input sit together. */
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

int pb_sweep_dimensions(const struct pb_config *cfg, struct pb_sweep_dimension *dims) {
    int ndims = 0;
    int dim_of_zip[PB_MAX_AXES];
    for (int g = 0; g < PB_MAX_AXES; g++) {
        dim_of_zip[g] = -1;
    }
    for (int a = 0; a < cfg->primitive->naxes; a++) {
        int z = cfg->zip_group[a];
        int k = z >= 0 ? dim_of_zip[z] : -1;
        if (k < 0) {
            k = ndims++;
            dims[k].naxes = 0;
            dims[k].length = cfg->axis[a].count;
            dims[k].zip = z;
            if (z >= 0) {
                dim_of_zip[z] = k;
            }
        }
        dims[k].axes[dims[k].naxes++] = a;
    }
    return ndims;
}

size_t pb_sweep_count(const struct pb_config *cfg) {
    if (cfg->nparts > 0) {
        size_t count = 0;
        for (int i = 0; i < cfg->nparts; i++) {
            count += pb_sweep_count(&cfg->parts[i]);
        }
        return count;
    }
    if (!cfg->primitive) {
        return 0;
    }
    struct pb_sweep_dimension dims[PB_MAX_AXES];
    int ndims = pb_sweep_dimensions(cfg, dims);
    size_t count = 1;
    for (int k = 0; k < ndims; k++) {
        count *= (size_t)dims[k].length;
    }
    return count;
}

/* A suite's cases: each part's, in order, with the part they came from. */
static int expand_suite(const struct pb_config *cfg, struct pb_sweep *out) {
    size_t count = pb_sweep_count(cfg);
    out->cases = calloc(count ? count : 1, sizeof *out->cases);
    out->part = calloc(count ? count : 1, sizeof *out->part);
    if (!out->cases || !out->part) {
        pb_sweep_free(out);
        return -1;
    }
    for (int p = 0; p < cfg->nparts; p++) {
        struct pb_sweep one;
        if (pb_sweep_expand(&cfg->parts[p], &one) != 0) {
            pb_sweep_free(out);
            return -1;
        }
        for (size_t i = 0; i < one.count; i++) {
            out->cases[out->count] = one.cases[i];
            out->part[out->count++] = p;
        }
        pb_sweep_free(&one);
    }
    return 0;
}

int pb_sweep_expand(const struct pb_config *cfg, struct pb_sweep *out) {
    out->count = 0;
    out->cases = NULL;
    out->part = NULL;
    if (cfg->nparts > 0) {
        return expand_suite(cfg, out);
    }
    size_t count = pb_sweep_count(cfg);
    if (count == 0) {
        return 0;
    }
    struct pb_case *cases = calloc(count, sizeof *cases);
    if (!cases) {
        return -1;
    }
    struct pb_sweep_dimension dims[PB_MAX_AXES];
    int ndims = pb_sweep_dimensions(cfg, dims);
    int position[PB_MAX_AXES] = {0};
    for (size_t i = 0; i < count; i++) {
        struct pb_case *c = &cases[i];
        c->axes = cfg->primitive->axes;
        c->naxes = cfg->primitive->naxes;
        c->seed = cfg->seed;
        for (int k = 0; k < ndims; k++) {
            for (int j = 0; j < dims[k].naxes; j++) {
                int a = dims[k].axes[j];
                c->value[a] = cfg->axis[a].values[position[k]];
            }
        }
        /* Odometer: the last dimension turns fastest. */
        for (int k = ndims - 1; k >= 0; k--) {
            if (++position[k] < dims[k].length) {
                break;
            }
            position[k] = 0;
        }
    }
    out->cases = cases;
    out->count = count;
    return 0;
}

void pb_sweep_free(struct pb_sweep *s) {
    free(s->cases);
    free(s->part);
    s->part = NULL;
    s->cases = NULL;
    s->count = 0;
}
