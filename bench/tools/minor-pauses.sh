#!/bin/bash
# The minor collections' pauses in one or more -S files, pooled: count,
# percentiles and maximum of the elapsed column of every `Gen:  0` line
# (ms, at -S's millisecond resolution), and their total in seconds.
#
#   bench/tools/minor-pauses.sh FILE.S [FILE.S ...]
set -eu
[ $# -ge 1 ] || { echo "usage: $0 FILE.S [FILE.S ...]" >&2; exit 1; }
awk '/\(Gen:  0\)/ { print $5 * 1000 }' "$@" | sort -n | awk '
    { a[NR] = $1; s += $1 }
    END {
        n = NR
        if (n == 0) { print "n=0"; exit }
        p999 = int(n * 0.999) + 1
        if (p999 > n) p999 = n
        printf "n=%d p50=%.0f p90=%.0f p99=%.0f p99.9=%.0f max=%.0f total=%.2fs\n", n,
               a[int(n * 0.5) + 1], a[int(n * 0.9) + 1], a[int(n * 0.99) + 1], a[p999], a[n],
               s / 1000
    }'
