#!/usr/bin/env python3
"""Writes the suite fixtures of test_compare from suite_base.csv, the output of
`bench run --output tests/data/compare/suite_base.csv configs/ci.json` (a suite: every
primitive in one CSV, axis columns blank where a primitive has no such axis) on a machine
without a GPU, so GPU rows are skipped and CPU rows measured. suite_slower.csv is the same
with one row 20% slower: sssp/cpu-heap on the RMAT graph, whose n, dtype, ... are blank.
Run from the repository root: python3 tests/data/compare/make_suite_fixtures.py"""
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TIMES = ["mean_ms", "stddev_ms", "ci95_low_ms", "ci95_high_ms", "median_ms", "min_ms", "max_ms"]
RATES = ["gelem_per_s", "gelem_per_s_ci_low", "gelem_per_s_ci_high", "gbytes_per_s",
         "gbytes_per_s_ci_low", "gbytes_per_s_ci_high", "bound_fraction"]


def main():
    with open(os.path.join(HERE, "suite_base.csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    planted = 0
    for r in body:
        if r[col["backend"]] == "sssp/cpu-heap" and r[col["graph"]] == "rmat":
            for name in TIMES + RATES:
                if r[col[name]]:
                    v = float(r[col[name]])
                    r[col[name]] = "%.6g" % (v * 1.2 if name in TIMES else v / 1.2)
            planted += 1
    assert planted == 1, planted
    with open(os.path.join(HERE, "suite_slower.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(header)
        w.writerows(body)


if __name__ == "__main__":
    main()
