/* The markdown summary table printed after a run. */
#ifndef PB_REPORT_H
#define PB_REPORT_H

#include <stdio.h>

#include "results.h"

void pb_report_markdown(FILE *out, const struct pb_primitive *p, const struct pb_row *rows,
                        size_t count);

#endif
