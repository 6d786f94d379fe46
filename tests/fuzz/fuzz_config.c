/* libFuzzer target: pb_config_parse over arbitrary bytes. Besides the sanitizers' checks it
 * asserts the promises the config loader makes: 0 or 2, a clean config on failure, and
 * every problem one line that names the file; a suite's parts each complete. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sweep.h"

#define FILE_NAME "fuzz.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_errors(const char *errors) {
    if (!errors || !errors[0]) {
        fprintf(stderr, "failure without a message\n");
        abort();
    }
    const char *prefix = FILE_NAME ": ";
    for (const char *line = errors; *line;) {
        const char *end = strchr(line, '\n');
        if (!end || strncmp(line, prefix, strlen(prefix)) != 0 || end == line + strlen(prefix)) {
            fprintf(stderr, "not a one-line message naming the file: %s\n", line);
            abort();
        }
        line = end + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct pb_config cfg;
    char *errors = NULL;
    int rc = pb_config_parse(FILE_NAME, (const char *)data, size, &cfg, &errors);
    if (rc == 2) {
        check_errors(errors);
        if (cfg.text || cfg.primitive || cfg.output || cfg.parts || cfg.nparts) {
            fprintf(stderr, "a failed parse left a config behind\n");
            abort();
        }
    } else if (rc == 0) {
        /* A config that loads must expand: every axis has values, the size is bounded. */
        /* A suite: every part is complete; an ordinary config is its own one part. */
        size_t cases = pb_sweep_count(&cfg);
        bool complete = !errors && cfg.name && cfg.output && cases >= 1 &&
                        cases <= PB_CONFIG_SWEEP_LIMIT && (cfg.nparts == 0 || !cfg.primitive);
        for (int i = 0; i < pb_config_part_count(&cfg); i++) {
            const struct pb_config *part = pb_config_part(&cfg, i);
            complete =
                complete && part->primitive && part->nbackends >= 1 && pb_sweep_count(part) >= 1;
        }
        if (!complete) {
            fprintf(stderr, "a loaded config is incomplete (%zu cases)\n", cases);
            abort();
        }
        if (cases <= 4096) {
            struct pb_sweep sweep;
            if (pb_sweep_expand(&cfg, &sweep) != 0 || sweep.count != cases) abort();
            pb_sweep_free(&sweep);
        }
        pb_config_free(&cfg);
    } else {
        abort();
    }
    free(errors);
    return 0;
}
