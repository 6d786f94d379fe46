#!/bin/sh
# tools/kernel-times-summary over a hand-made ncu CSV (data/kernel-times/two-cases.csv): case 1
# is two runs of (sample 11 + tile 29, sample 12 + tile 28 us), so its last run is 40 us of which
# 12 lie outside the tile kernel (30%); case 2 is one run of three kernels given in us, 15 us, 10
# of them outside the tile kernel. A file with no durations is refused.
#   test_kernel_times_summary.sh TOOL DATA_DIR
set -eu
tool=$1
data=$2
out=$("$tool" "$data/two-cases.csv" --main tile_kernel)
expect() {
    printf '%s\n' "$out" | grep -qxF -- "$1" || {
        printf 'missing line: %s\nin:\n%s\n' "$1" "$out"
        exit 1
    }
}
expect "case 1: 2 run(s) of 2 launches, the last 40.0 us"
expect "        12.0 us   30.0%  pb::sample_kernel"
expect "        28.0 us   70.0%  pb::tile_kernel"
expect "  outside /tile_kernel/: 12.0 of 40.0 us, 30.0%"
expect "case 2: 1 run(s) of 3 launches, the last 15.0 us"
expect "         2.5 us   16.7%  cub::DeviceRadixSortHistogramKernel"
expect "  outside /tile_kernel/: 7.5 of 15.0 us, 50.0%"
empty=$(mktemp)
head -3 "$data/two-cases.csv" >"$empty"
if "$tool" "$empty" >/dev/null 2>&1; then
    echo "a file with no durations was accepted"
    rm -f "$empty"
    exit 1
fi
rm -f "$empty"
echo "kernel-times-summary: ok"
