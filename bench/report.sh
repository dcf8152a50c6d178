#!/bin/bash
# Turn one bench/run.sh run into a dated report and its plots:
#
#   bench/report.sh <run dir> <output dir>
#
# <run dir> holds raw.txt (one line per run, written by bench/run.sh), the
# pause files of every run and meta.sh (the machine, versions, notes and
# sizes). Writes <output dir>/<date>-<host>.md, its SVG plots (when gnuplot
# is installed) and <date>-<host>.raw.txt, a copy of the raw lines.
set -u
cd "$(dirname "$0")/.." || exit 2
if [ $# -ne 2 ] || [ ! -f "$1/raw.txt" ] || [ ! -f "$1/meta.sh" ]; then
    echo "usage: bench/report.sh <run dir with raw.txt and meta.sh> <output dir>" >&2
    exit 2
fi
work=$1
out_dir=$2
raw=$work/raw.txt
# shellcheck disable=SC1091
. "$work/meta.sh"
mkdir -p "$out_dir"
stem=$date-$host
report=$out_dir/$stem.md
cp "$raw" "$out_dir/$stem.raw.txt"

# The hsrts configuration a peer is compared with: the same allocation area
# and the same kind of old generation.
baseline() {
    case $1 in
        hsrts@*) echo "hsrts" ;; # BENCH_BASELINE: the tree against an earlier revision
        "hsrts thr -N1") echo "hsrts" ;; # the threaded way's cost on one thread
        hsrts*) echo "" ;;
        "GHC -c" | "GHC -w" | "GHC -xn") echo "hsrts ${1#GHC }" ;; # the same old generation
        "GHC thr -xn") echo "hsrts thr -xn" ;; # both mark concurrently
        *-A64m) echo "hsrts -A64m" ;;
        *-N2) echo "hsrts -N2" ;;
        *) echo "hsrts" ;;
    esac
}

# Per workload and configuration: count of good runs, then median, min and
# max of each measured column (5..11 of raw.txt), "-" where nothing was
# reported. Fields: w|label|ok|n|wall med|min|max|cpu ...|rss ...|gc ...|
# copied ...|live ...|pause ...
summary=$work/summary.txt
awk -F'|' '
function stats(list,    n, v, i, j, t, m) {
    n = split(list, v, " ")
    if (n == 0) return "-|-|-"
    for (i = 2; i <= n; i++) {          # insertion sort: a handful of runs
        t = v[i] + 0
        for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]
        v[j + 1] = t
    }
    m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    return m "|" v[1] "|" v[n]
}
{
    k = $1 "|" $2
    if (!(k in n)) order[++nk] = k
    n[k]++
    if ($4 != "ok") { bad[k]++; next }
    good[k]++
    for (c = 5; c <= 11; c++) if ($c != "") col[k, c] = col[k, c] " " $c
}
END {
    for (i = 1; i <= nk; i++) {
        k = order[i]
        line = k "|" good[k] + 0 "|" n[k]
        for (c = 5; c <= 11; c++) line = line "|" stats(col[k, c])
        print line
    }
}' "$raw" >"$summary"

# field <workload> <label> <column name> <med|min|max>
field() {
    awk -F'|' -v w="$1" -v l="$2" -v c="$3" -v s="$4" '
    BEGIN { split("wall cpu rss gc copied live pause", names, " ")
            for (i = 1; i <= 7; i++) base[names[i]] = 5 + 3 * (i - 1)
            off["med"] = 0; off["min"] = 1; off["max"] = 2 }
    $1 == w && $2 == l { print $(base[c] + off[s]); exit }' "$summary"
}
runs_ok() { awk -F'|' -v w="$1" -v l="$2" '$1 == w && $2 == l {print $3 "/" $4; exit}' "$summary"; }

# fmt <value> <scale divisor> <printf format>: "-" stays "-".
fmt() { [ "$1" = - ] || [ -z "$1" ] && echo "-" || awk -v v="$1" -v d="$2" -v f="$3" 'BEGIN {printf f, v / d}'; }
# A cell "median (min-max)".
cell() { # workload label column divisor format
    local m
    m=$(field "$1" "$2" "$3" med)
    if [ "$m" = - ] || [ -z "$m" ]; then
        echo "-"
        return
    fi
    echo "$(fmt "$m" "$4" "$5") ($(fmt "$(field "$1" "$2" "$3" min)" "$4" "$5")–$(fmt "$(field "$1" "$2" "$3" max)" "$4" "$5"))"
}
ratio() { # workload label column: hsrts baseline median / this median
    local b a p
    b=$(baseline "$2")
    [ -z "$b" ] && { echo "-"; return; }
    a=$(field "$1" "$b" "$3" med)
    p=$(field "$1" "$2" "$3" med)
    if [ -z "$a" ] || [ -z "$p" ] || [ "$a" = - ] || [ "$p" = - ]; then
        echo "-"
        return
    fi
    awk -v a="$a" -v p="$p" 'BEGIN {if (p > 0) printf "%.2f", a / p; else print "-"}'
}

# summary_table TITLE COLUMN METRIC DIVISOR FORMAT: hsrts's median, then ratios to each peer.
summary_table() {
    local title=$1 column=$2 metric=$3 divisor=$4 format=$5 w p
    echo "## Summary: $title"
    echo
    printf '| workload | %s |' "$column"
    for p in "${peers[@]}"; do printf ' %s |' "$p"; done
    echo
    printf '|---|---|'
    for _ in "${peers[@]}"; do printf -- '---|'; done
    echo
    for w in $workloads; do
        printf '| %s | %s |' "$w" "$(fmt "$(field "$w" hsrts "$metric" med)" "$divisor" "$format")"
        for p in "${peers[@]}"; do printf ' %s |' "$(ratio "$w" "$p" "$metric")"; done
        echo
    done
    echo
}

have_gnuplot=no
command -v gnuplot >/dev/null 2>&1 && have_gnuplot=yes
[ $have_gnuplot = no ] && notes+=("plots skipped: gnuplot is not installed (make bench-deps installs gnuplot-nox).")

peers=()
for l in "${labels[@]}"; do case $l in hsrts*) ;; *) peers+=("$l") ;; esac; done

{
    echo "# hsrts benchmarks, $date, $host"
    echo
    echo "Command: \`make bench\` (bench/run.sh), $runs runs of every configuration, interleaved"
    echo "(A B C … A B C …), medians with (min–max). hsrts $commit; gcc $gcc_v; GHC ${ghc_v:--};"
    echo "OCaml ${ocaml_v:--}; Boehm GC (libgc-dev) ${libgc_v:--}; jemalloc ${jemalloc_v:--}."
    echo
    echo "Machine: ${cpu_model:-unknown CPU}, $cores cores, $mem; memcpy bandwidth ${memcpy:-?} GB/s"
    echo "(best of 10 copies of 256 MiB: a copying collector's bytes copied per GC second"
    echo "can be read against it)."
    echo
    if [ ${#notes[@]} -gt 0 ] && [ -n "${notes[*]}" ]; then
        echo "Skipped:"
        echo
        for n in "${notes[@]}"; do [ -n "$n" ] && echo "- $n"; done
        echo
    fi
    echo "Reading the tables: ratios are hsrts / peer on medians, so below 1 means hsrts is"
    echo "faster or smaller. Each peer is compared with hsrts at its default \`-A4m\`, except"
    echo "\`GHC -A64m\`, compared with \`hsrts -A64m\`, and GHC's \`-c\`, \`-w\`, \`-xn\` and"
    echo "\`thr -xn\`, compared with the same hsrts configuration. GC time, bytes copied, maximum"
    echo "residency and maximum pause are each runtime's own statistics (\`+RTS -S\` for hsrts"
    echo "and GHC; for Boehm GC its collection events, whose residency is heap in use after"
    echo "a collection; for OCaml \`Gc.quick_stat\`: its \"copied\" is the minor collector's"
    echo "promotion and its residency the top heap size; OCaml 4 reports no GC time or"
    echo "pauses). malloc, jemalloc and the arena have no collector: \`-\`."
    echo
    summary_table "CPU time" "hsrts CPU s" cpu 1 %.2f
    echo "Cells after the second column: CPU-time ratio hsrts / peer (the steadiest measure on"
    echo "a shared machine)."
    echo
    summary_table "wall time" "hsrts s" wall 1 %.2f
    echo "Cells after the second column: wall-time ratio hsrts / peer."
    echo
    summary_table "peak RSS" "hsrts MiB" rss 1024 %.0f
    if [ $have_gnuplot = yes ]; then
        echo "![wall time per workload and runtime]($stem-wall.svg)"
        echo "![peak RSS per workload and runtime]($stem-rss.svg)"
        echo
    fi
    for w in $workloads; do
        echo "## $w (args: ${size[$w]})"
        echo
        echo "${what[$w]}."
        echo
        echo "| runtime | runs ok | wall s | CPU s | peak RSS MiB | GC s | copied GB | max residency MiB | max pause ms | vs | wall ratio | CPU ratio | RSS ratio |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        for l in "${labels[@]}"; do
            printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$l" \
                "$(runs_ok "$w" "$l")" \
                "$(cell "$w" "$l" wall 1 %.2f)" "$(cell "$w" "$l" cpu 1 %.2f)" \
                "$(cell "$w" "$l" rss 1024 %.0f)" "$(cell "$w" "$l" gc 1 %.2f)" \
                "$(fmt "$(field "$w" "$l" copied med)" 1e9 %.2f)" \
                "$(fmt "$(field "$w" "$l" live med)" 1048576 %.0f)" \
                "$(cell "$w" "$l" pause 0.001 %.1f)" \
                "$(baseline "$l" | sed 's/^$/-/')" "$(ratio "$w" "$l" wall)" \
                "$(ratio "$w" "$l" cpu)" "$(ratio "$w" "$l" rss)"
        done
        echo
        if [ "$w" = "$pause_workload" ]; then
            echo "Pauses of every collection in all runs (ms; hsrts and GHC report them to the"
            echo "millisecond):"
            echo
            echo "| runtime | collections | p50 | p90 | p99 | max |"
            echo "|---|---|---|---|---|---|"
            for l in "${labels[@]}"; do
                f=$work/pauses.$(echo "$l" | tr -c 'A-Za-z0-9\n' '_')
                cat "$work/$w.$(echo "$l" | tr -c 'A-Za-z0-9\n' '_')".*.pauses 2>/dev/null |
                    sort -g >"$f"
                [ -s "$f" ] || continue
                awk -v l="$l" '{v[NR] = $1 * 1000}
                    function q(p,  i) {i = int(p * NR + 0.999999); if (i < 1) i = 1; return v[i]}
                    END {printf "| %s | %d | %.1f | %.1f | %.1f | %.1f |\n", l, NR, q(0.5), q(0.9), q(0.99), v[NR]}' "$f"
            done
            echo
            [ $have_gnuplot = yes ] && echo "![pause distribution of $w]($stem-pauses.svg)" && echo
        fi
    done
    echo "Raw lines (workload|runtime|run|status|wall s|CPU s|peak RSS KiB|GC s|copied bytes|max residency bytes|max pause s): [$stem.raw.txt]($stem.raw.txt)."
} >"$report"

# ---------------------------------------------------------------------------
# Plots: clustered bars per workload (one bar per runtime), log scale, and
# the pause distribution of the large-heap workload.
# One colour per configuration, in the order of $labels: hsrts in blues,
# GHC in reds, then the other peers.
colors="#12407f #3a78c9 #8fb5e8 #5b2a86 #7f5fb5 #a991d4 #b3261e #e0643a #f2a65a #2e8b57 #555555 #8e6c2b #c79a2e #999999"
if [ $have_gnuplot = yes ]; then
    for col in wall rss; do
        dat=$work/plot-$col.dat
        {
            printf 'workload'
            for l in "${labels[@]}"; do printf '\t"%s"' "$l"; done
            echo
            for w in $workloads; do
                printf '%s' "$w"
                for l in "${labels[@]}"; do
                    v=$(field "$w" "$l" $col med)
                    if [ -z "$v" ] || [ "$v" = - ]; then printf '\t?'
                    elif [ $col = rss ]; then printf '\t%s' "$(fmt "$v" 1024 %.1f)"
                    else printf '\t%s' "$v"; fi
                done
                echo
            done
        } >"$dat"
        ylabel="wall time, s (median)"
        [ $col = rss ] && ylabel="peak RSS, MiB (median)"
        gnuplot <<EOF 2>"$work/gnuplot.log" || echo "bench/report.sh: $col plot failed: $(head -n 1 "$work/gnuplot.log")" >&2
set terminal svg size 1100,520 dynamic font "sans,11"
set output "$out_dir/$stem-$col.svg"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set grid ytics
set ylabel "$ylabel"
set title "$ylabel per workload and runtime ($date, $host)"
set key outside right top vertical
set xtics nomirror
colors = "$colors"
plot for [i=2:$((${#labels[@]} + 1))] "$dat" using i:xtic(1) title columnheader(i) lc rgb word(colors, i - 1)
EOF
    done
    plots=""
    for ((i = 0; i < ${#labels[@]}; i++)); do
        l=${labels[$i]}
        f=$work/pauses.$(echo "$l" | tr -c 'A-Za-z0-9\n' '_')
        [ -s "$f" ] || continue
        awk '{n[NR] = $1} END {for (i = 1; i <= NR; i++) printf "%.4f %.4f\n", 100 * i / NR, n[i] * 1000}' \
            "$f" >"$f.dat"
        c=$(echo "$colors" | cut -d' ' -f$((i + 1)))
        plots="${plots:+$plots, }\"$f.dat\" using 1:2 with steps lw 2 lc rgb \"$c\" title \"$l\""
    done
    if [ -n "$plots" ]; then
        gnuplot <<EOF 2>"$work/gnuplot.log" || echo "bench/report.sh: pause plot failed: $(head -n 1 "$work/gnuplot.log")" >&2
set terminal svg size 900,520 dynamic font "sans,11"
set output "$out_dir/$stem-pauses.svg"
set logscale y
set grid
set xlabel "collections, percent (sorted by pause)"
set ylabel "pause, ms"
set title "$pause_workload: pause of every collection ($date, $host)"
set key left top
plot $plots
EOF
    fi
fi

cat "$report"
echo "(report: $report)" >&2
