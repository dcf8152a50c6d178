#!/bin/bash
# binary-trees: hsrts against GHC, measured side by side in one run.
#
#   bench/binarytrees.sh [depth] [runs]     (defaults: 21, 5)
#
# Runs every configuration `runs` times, interleaved (A B C A B C ...), and
# prints medians (min-max) of wall time, GC CPU time, bytes copied and peak
# RSS, with hsrts/GHC ratios. GC time and bytes copied come from each
# runtime's own +RTS -s. Writes bench/results/<date>-<host>-binarytrees.md.
# A missing GHC is reported and skipped, never silently.
set -u
cd "$(dirname "$0")/.."
depth=${1:-21}
runs=${2:-5}
out=build/bench
mkdir -p $out bench/results

make --no-print-directory build/bench/binarytrees >/dev/null || exit 1
cc -O2 -o $out/rss bench/tools/rss.c || exit 1

configs=("hsrts|build/bench/binarytrees $depth +RTS -s -RTS"
         "hsrts -A64m|build/bench/binarytrees $depth +RTS -s -A64m -RTS")
ghc_note=""
if command -v ghc >/dev/null 2>&1; then
    if [ ! -x $out/ghc-binarytrees ] || [ bench/peers/binarytrees.hs -nt $out/ghc-binarytrees ]; then
        mkdir -p $out/ghc-obj
        ghc -O2 -fno-full-laziness -fno-cse -rtsopts -outputdir $out/ghc-obj \
            -o $out/ghc-binarytrees bench/peers/binarytrees.hs >/dev/null || exit 1
    fi
    ghc_version=$(ghc --numeric-version)
    configs+=("GHC $ghc_version|$out/ghc-binarytrees $depth +RTS -s -RTS"
              "GHC $ghc_version -A4m|$out/ghc-binarytrees $depth +RTS -s -A4m -RTS"
              "GHC $ghc_version -A64m|$out/ghc-binarytrees $depth +RTS -s -A64m -RTS")
else
    ghc_note="GHC is not installed (make bench-deps installs it): GHC columns skipped."
    echo "$ghc_note" >&2
fi

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
[ -n "${BENCH_KEEP_RAW:-}" ] && trap - EXIT && echo "raw: $raw" >&2
total=$((runs * ${#configs[@]}))
n=0
start=$SECONDS
for ((r = 1; r <= runs; r++)); do
    for c in "${configs[@]}"; do
        label=${c%%|*}
        cmd=${c#*|}
        n=$((n + 1))
        left=""
        if [ $n -gt 1 ]; then
            left=" (about $(( (SECONDS - start) * (total - n + 1) / (n - 1) ))s left)"
        fi
        printf '[%d/%d] run %d of %s%s\n' $n $total $r "$label" "$left" >&2
        # shellcheck disable=SC2086
        res=$($out/rss $cmd 2>&1 >/dev/null)
        wall=$(echo "$res" | awk '/^wall_s/ {print $2}')
        rss=$(echo "$res" | awk '/^wall_s/ {print $4}')
        copied=$(echo "$res" | awk '/bytes copied during GC/ {gsub(",", "", $1); print $1}')
        gc=$(echo "$res" | awk '/^  GC +time/ {gsub("s", "", $3); print $3}')
        echo "$label|$wall|$gc|$copied|$rss" >> "$raw"
    done
done

# median (min-max) of column k for a label
stat() {
    awk -F'|' -v l="$1" -v k="$2" '$1 == l {print $k}' "$raw" | sort -g |
        awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
              printf "%s %s %s", m, v[1], v[NR]}'
}
median() { stat "$1" "$2" | awk '{print $1}'; }

host=$(hostname)
date=$(date +%Y-%m-%d)
report=bench/results/$date-$host-binarytrees.md
cpu=$(awk -F: '/model name/ {print $2; exit}' /proc/cpuinfo | sed 's/^ //')
{
    echo "# binary-trees, depth $depth, $runs runs each, interleaved ($date, $host)"
    echo
    echo "Machine: $cpu, $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)."
    [ -n "$ghc_note" ] && echo && echo "$ghc_note"
    echo
    echo "| configuration | wall s | GC CPU s | copied GB | copy rate GB/GC-s | peak RSS MiB |"
    echo "|---|---|---|---|---|---|"
    for c in "${configs[@]}"; do
        l=${c%%|*}
        read -r w wmin wmax <<< "$(stat "$l" 2)"
        read -r g gmin gmax <<< "$(stat "$l" 3)"
        read -r cp _ _ <<< "$(stat "$l" 4)"
        read -r m mmin mmax <<< "$(stat "$l" 5)"
        awk -v l="$l" -v w="$w" -v wmin="$wmin" -v wmax="$wmax" -v g="$g" -v gmin="$gmin" \
            -v gmax="$gmax" -v cp="$cp" -v m="$m" -v mmin="$mmin" -v mmax="$mmax" 'BEGIN {
            printf "| %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f | %.2f | %.0f (%.0f-%.0f) |\n",
                l, w, wmin, wmax, g, gmin, gmax, cp / 1e9, (g > 0 ? cp / 1e9 / g : 0),
                m / 1024, mmin / 1024, mmax / 1024 }'
    done
    if [ -z "$ghc_note" ]; then
        echo
        echo "Ratios hsrts / GHC (medians; below 1 means hsrts is faster or smaller):"
        echo
        echo "| hsrts | GHC | wall | GC CPU | copied | peak RSS |"
        echo "|---|---|---|---|---|---|"
        for pair in "hsrts|GHC $ghc_version -A4m" "hsrts|GHC $ghc_version" \
                    "hsrts -A64m|GHC $ghc_version -A64m"; do
            a=${pair%%|*}
            b=${pair#*|}
            awk -v a="$a" -v b="$b" -v w1="$(median "$a" 2)" -v w2="$(median "$b" 2)" \
                -v g1="$(median "$a" 3)" -v g2="$(median "$b" 3)" -v c1="$(median "$a" 4)" \
                -v c2="$(median "$b" 4)" -v r1="$(median "$a" 5)" -v r2="$(median "$b" 5)" 'BEGIN {
                printf "| %s | %s | %.2f | %.2f | %.2f | %.2f |\n", a, b, w1 / w2, g1 / g2, c1 / c2, r1 / r2 }'
        done
    fi
} > "$report"
cat "$report"
echo "(written to $report)" >&2
