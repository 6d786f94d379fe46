/* A markdown table, one line per row: enough to read a run at a glance; the CSV holds
 * every number. */
#include <inttypes.h>
#include <math.h>

#include "report.h"

void pb_report_markdown(FILE *out, const struct pb_primitive *p, const struct pb_row *rows,
                        size_t count) {
    fprintf(out, "|");
    for (int i = 0; i < p->naxes; i++) fprintf(out, " %s |", p->axes[i].name);
    fprintf(out, " backend | status | reps | median ms | 95%% CI of mean ms | Gelem/s | GB/s | of "
                 "bound |\n|");
    for (int i = 0; i < p->naxes + 8; i++) fprintf(out, "---|");
    fprintf(out, "\n");
    for (size_t r = 0; r < count; r++) {
        const struct pb_row *row = &rows[r];
        fprintf(out, "|");
        for (int i = 0; i < row->c->naxes; i++) {
            if (row->c->axes[i].kind == PB_AXIS_INT)
                fprintf(out, " %" PRId64 " |", row->c->value[i]);
            else
                fprintf(out, " %s |", row->c->axes[i].choices[row->c->value[i]]);
        }
        fprintf(out, " %s | %s |", row->backend->name, pb_status_name(row->status));
        if (row->status != PB_STATUS_OK) {
            fprintf(out, " | %s | | | | |\n", row->reason);
            continue;
        }
        struct pb_rates rates;
        pb_row_rates(row, &rates);
        const struct pb_summary *t = &row->time_ms;
        fprintf(out, " %d | %.4f |", t->count, t->median);
        if (isfinite(t->ci95_low))
            fprintf(out, " %.4f .. %.4f |", t->ci95_low, t->ci95_high);
        else
            fprintf(out, " |");
        fprintf(out, " %.3f | %.1f |", rates.gelem_per_s, rates.gbytes_per_s);
        if (isfinite(rates.bound_fraction))
            fprintf(out, " %.2f |\n", rates.bound_fraction);
        else
            fprintf(out, " |\n");
    }
}
