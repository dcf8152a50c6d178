#!/bin/bash
# Two builds of one workload, in ABBA order (old new new old old new ...), so
# a machine that slows from one run to the next favours neither. Per run:
# wall time and peak RSS (/usr/bin/time), the nonmoving thread's CPU, and
# the minor collections' pauses from -S.
#
#   bench/tools/ab-pairs.sh PAIRS OLD_BINARY NEW_BINARY ARGS... +RTS FLAGS -RTS
#   e.g. bench/tools/ab-pairs.sh 4 /tmp/old/build/bench/thr/largeheap \
#            build/bench/thr/largeheap 1200 2 +RTS -N1 -xn -RTS
set -eu
[ $# -ge 3 ] || { echo "usage: $0 PAIRS OLD_BINARY NEW_BINARY ARGS..." >&2; exit 1; }
pairs=$1 old=$2 new=$3
shift 3
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$pairs"); do
    if [ $((i % 2)) = 1 ]; then order="old new"; else order="new old"; fi
    for which in $order; do
        if [ "$which" = old ]; then bin=$old; else bin=$new; fi
        /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" "$@" +RTS -S"$tmp/S" -RTS >/dev/null
        read -r wall rss_kb <"$tmp/time"
        conc=$(awk '$1 == "Gen" && $3 == "concurrent," { print $4 }' "$tmp/S")
        printf '%s wall=%s rssMB=%d conc=%s %s\n' "$which" "$wall" $((rss_kb / 1024)) \
            "${conc:--}" "$("$here"/minor-pauses.sh "$tmp/S")"
    done
done
