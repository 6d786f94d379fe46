#!/usr/bin/env python3
"""Writes the compare/report/plot test fixtures from rows the H200 really measured
(results/h200/reduction.csv), with planted changes. Run from the repository root:
python3 tests/data/compare/make_fixtures.py"""
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "..", "results", "h200", "reduction.csv")
TIMES = ["mean_ms", "stddev_ms", "ci95_low_ms", "ci95_high_ms", "median_ms", "min_ms", "max_ms"]
RATES = ["gelem_per_s", "gelem_per_s_ci_low", "gelem_per_s_ci_high", "gbytes_per_s",
         "gbytes_per_s_ci_low", "gbytes_per_s_ci_high", "bound_fraction"]
NUMBERS = TIMES + RATES + ["setup_ms", "wall_ms", "between_reps_us"]


def g(v):
    return "%.6g" % v


def load():
    with open(SOURCE, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def pick(header, rows, keep):
    col = {name: i for i, name in enumerate(header)}
    return [r for r in rows if keep({name: r[i] for name, i in col.items()})]


def write(name, header, rows):
    with open(os.path.join(HERE, name), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(header)
        w.writerows(rows)


def find(header, rows, n, dtype, op, backend):
    col = {name: i for i, name in enumerate(header)}
    for r in rows:
        if (r[col["n"]], r[col["dtype"]], r[col["op"]], r[col["backend"]]) == (n, dtype, op, backend):
            return r
    raise KeyError((n, dtype, op, backend))


def scale(header, row, factor):
    """The same row, every time multiplied by factor (so every rate divided by it)."""
    col = {name: i for i, name in enumerate(header)}
    for name in TIMES + RATES:
        if row[col[name]]:  # a CPU row has no bound_fraction
            v = float(row[col[name]])
            row[col[name]] = g(v * factor if name in TIMES else v / factor)


def set_status(header, row, status, reason):
    col = {name: i for i, name in enumerate(header)}
    row[col["status"]] = status
    row[col["reason"]] = reason
    row[col["reps"]] = "0"
    for name in TIMES + RATES + ["between_reps_us"]:
        row[col[name]] = ""


def main():
    header, all_rows = load()
    base = pick(header, all_rows, lambda r: r["n"] in ("1024", "1048576", "16777216")
                and r["dtype"] in ("u32", "f32") and r["distribution"] == "uniform"
                and r["op"] in ("sum", "min"))
    assert len(base) == 36
    write("base.csv", header, base)

    rows = [list(r) for r in base]
    scale(header, find(header, rows, "16777216", "u32", "sum", "reduce/butterfly"), 1.20)
    write("slower.csv", header, rows)

    rows = [list(r) for r in base]
    scale(header, find(header, rows, "16777216", "u32", "sum", "reduce/butterfly"), 1.01)
    # a CPU row with few repetitions and a wide spread: 10% slower, but not significantly
    noisy = find(header, rows, "1048576", "f32", "sum", "reduce/cpu")
    scale(header, noisy, 1.10)
    col = {name: i for i, name in enumerate(header)}
    mean = float(noisy[col["mean_ms"]])
    noisy[col["reps"]] = "3"
    sd = 0.3 * mean
    half = 4.302653 * sd / 3 ** 0.5  # Student t(0.975, 2 degrees of freedom)
    n = float(noisy[col["n"]])
    noisy[col["stddev_ms"]] = g(sd)
    noisy[col["ci95_low_ms"]], noisy[col["ci95_high_ms"]] = g(mean - half), g(mean + half)
    for rate, per in (("gelem_per_s", n), ("gbytes_per_s", 4 * n)):
        noisy[col[rate + "_ci_low"]] = g(per / (mean + half) / 1e6)
        noisy[col[rate + "_ci_high"]] = g(per / (mean - half) / 1e6)
    write("noise.csv", header, rows)

    rows = [list(r) for r in base]
    scale(header, find(header, rows, "1048576", "u32", "min", "reduce/cub"), 0.75)
    write("faster.csv", header, rows)

    rows = [list(r) for r in base if r is not find(header, base, "1024", "f32", "min", "reduce/cpu")]
    rows.append(list(find(header, all_rows, "4096", "u32", "sum", "reduce/butterfly")))
    write("missing.csv", header, rows)

    rows = [list(r) for r in base]
    set_status(header, find(header, rows, "1024", "u32", "min", "reduce/butterfly"), "wrong",
               "min 17, expected 3")
    set_status(header, find(header, rows, "1048576", "f32", "sum", "reduce/cub"), "skipped",
               "no CUDA device")
    write("failing.csv", header, rows)

    # unusable inputs
    write("columns.csv", header[:4] + ["cache"] + header[4:],
          [r[:4] + ["cold"] + r[4:] for r in base])
    rows = [list(r) for r in base]
    rows[3] = rows[3][:-2]
    write("short_row.csv", header, rows)
    rows = [list(r) for r in base]
    rows[5][col["mean_ms"]] = "fast"
    write("bad_number.csv", header, rows)
    with open(os.path.join(HERE, "unterminated.csv"), "w", newline="") as f:
        f.write(",".join(header) + "\r\n")
        f.write(",".join(base[0]) + "\r\n")
        f.write(",".join(base[1][:9]) + ',"unterminated reason\r\n')
    with open(os.path.join(HERE, "not_primbench.csv"), "w", newline="") as f:
        f.write("name,mean_ms,stddev_ms\r\nbutterfly,0.028,0.0007\r\n")
    open(os.path.join(HERE, "empty.csv"), "w").close()


main()
