#!/bin/bash
# The cost of heap profiling (rts/trace, Note [When the census runs]):
# binary-trees at depth DEPTH (default 21) with and without -hT -i0.1,
# interleaved (plain, profiled, plain, profiled ...) RUNS times (default 5),
# then the medians of user+system CPU and elapsed time and the overhead.
# A benchmark, not a test: nothing is asserted. Usage:
#     make build/bench/binarytrees && bench/heap_prof_cost.sh [RUNS] [DEPTH] [-i value]
set -eu
cd "$(dirname "$0")/.."
runs=${1:-5}
depth=${2:-21}
interval=${3:-0.1}
bt=$PWD/build/bench/binarytrees
[ -x "$bt" ] || { echo "build it first: make build/bench/binarytrees" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
measure() { # label, args...: one line "label cpu elapsed censuses"
    local label=$1
    shift
    /usr/bin/time -f "%U %S %e" -o t.txt "$bt" "$depth" "$@" >/dev/null
    read -r u s e <t.txt
    local n=0
    [ -f binarytrees.hp ] && n=$(grep -c '^BEGIN_SAMPLE' binarytrees.hp)
    rm -f binarytrees.hp
    awk -v l="$label" -v u="$u" -v s="$s" -v e="$e" -v n="$n" 'BEGIN {print l, u + s, e, n}'
}
for i in $(seq "$runs"); do
    measure plain +RTS -RTS
    measure profiled +RTS -hT -i"$interval" -RTS
done | tee raw.txt
median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
for col in 2 3; do
    p=$(awk -v c=$col '$1 == "plain" {print $c}' raw.txt | median)
    q=$(awk -v c=$col '$1 == "profiled" {print $c}' raw.txt | median)
    name=$([ $col = 2 ] && echo "CPU (user+sys)" || echo "elapsed")
    awk -v n="$name" -v p="$p" -v q="$q" -v i="$interval" \
        'BEGIN {printf "%-15s plain %6.2f s   -hT -i%s %6.2f s   overhead %+.1f%%\n", n, p, i, q, (q - p) * 100 / p}'
done
echo "censuses per profiled run: $(awk '$1 == "profiled" {print $4}' raw.txt | median)"
