#!/bin/bash
# Parallel GC's benchmark (issue 12): GC CPU and GC wall time of largeheap,
# binarytrees and mapchurn at -N2 with parallel GC off (-qg), with the
# default work rule, with every collection parallel, and on GHC -N2 (its
# default parallel GC), runs interleaved (A B C D A B C D ...).
#
#   bench/pargc_run.sh            RUNS=5 runs per configuration; writes
#                                 bench/results/<date>-<host>-pargc.md
#   bench/pargc_run.sh --check    each configuration once at a tiny size;
#                                 checks that every configuration prints
#                                 the same result (make check-bench)
#
# Knobs: PARGC_RUNS (5), PARGC_WORKLOADS ("largeheap binarytrees mapchurn"),
# PARGC_SIZE_<workload> (the size arguments), BENCH_OUT (bench/results).
# Times come from each program's own +RTS -s report (GHC's format, which
# hsrts prints too). No timing is judged here.
set -u
cd "$(dirname "$0")/.." || exit 2
mode=bench
[ "${1:-}" = --check ] && mode=check
runs=${PARGC_RUNS:-5}
[ $mode = check ] && runs=1
workloads=${PARGC_WORKLOADS:-largeheap binarytrees mapchurn}
declare -A size tiny
size[largeheap]="1200 2"; tiny[largeheap]="2 2"
size[binarytrees]="21"; tiny[binarytrees]="6"
size[mapchurn]="1000000 500000"; tiny[mapchurn]="1000 5000"
work=build/bench/pargc-$mode
mkdir -p "$work"

labels=("hsrts -N2 -qg" "hsrts -N2" "hsrts -N2 par-all" "GHC -N2")
dirs=(build/bench/thr build/bench/thr build/bench/thr build/bench/ghc-thr)
flags=("-N2 -qg" "-N2" "-N2 -qb0 --parallel-gc-threshold=0" "-N2")

have_ghc=yes
for w in $workloads; do
    make --no-print-directory -s build/bench/thr/$w >"$work/make.log" 2>&1 ||
        { cat "$work/make.log" >&2; echo "pargc: cannot build build/bench/thr/$w" >&2; exit 1; }
    if [ $have_ghc = yes ] && ! make --no-print-directory -s build/bench/ghc-thr/$w >"$work/make.log" 2>&1; then
        echo "note: GHC -N2 skipped (ghc -threaded does not build $w; make bench-deps installs GHC)" >&2
        have_ghc=no
    fi
done
n_cfg=4
[ $have_ghc = yes ] || n_cfg=3

# secs KEY FILE: "cpu wall" of the "KEY time" line of an -s report.
secs() { sed -n "s/^  $1 *time *\([0-9.]*\)s *( *\([0-9.]*\)s elapsed).*/\1 \2/p" "$2"; }
fail=0
declare -A used
for w in $workloads; do
    args=${size[$w]}
    v="PARGC_SIZE_$w"; [ -n "${!v:-}" ] && args=${!v}
    [ $mode = check ] && args=${tiny[$w]}
    used[$w]=$args
    ref=
    for ((r = 0; r < runs; r++)); do
        for ((c = 0; c < n_cfg; c++)); do
            s="$work/$w.$c.$r.s"
            # shellcheck disable=SC2086
            if ! out=$(${dirs[$c]}/$w $args +RTS ${flags[$c]} -s"$s" -RTS 2>"$work/err"); then
                echo "pargc: ${labels[$c]} $w failed: $(head -3 "$work/err")" >&2
                fail=1; continue
            fi
            out=$(printf '%s\n' "$out" | grep -v '^bench-stats:')
            if [ -z "$ref" ]; then ref=$out
            elif [ "$out" != "$ref" ]; then
                echo "pargc: ${labels[$c]} $w printed '$out', want '$ref'" >&2; fail=1
            fi
            bal=$(sed -n 's/.*Parallel GC work balance: \([0-9.]*\)%.*/\1/p' "$s")
            echo "$(secs GC "$s") $(secs Total "$s" | cut -d' ' -f2) ${bal:--}" >"$work/$w.$c.$r.t"
        done
    done
    [ $mode = check ] && echo "pargc: $w: $n_cfg configurations agree" >&2
done
[ $mode = check ] && exit $fail

# Fastest and median of column k over the runs of (workload, config).
stat() {
    for ((r = 0; r < runs; r++)); do cut -d' ' -f"$3" "$work/$1.$2.$r.t"; done | sort -g |
        awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
                                printf "%.3f %.3f", v[1], m }'
}
out_dir=${BENCH_OUT:-bench/results}
mkdir -p "$out_dir"
report="$out_dir/$(date +%Y-%m-%d)-$(hostname -s 2>/dev/null || hostname)-pargc.md"
{
    echo "# Parallel GC, $(date -u '+%Y-%m-%d %H:%M UTC'), $runs runs per configuration, interleaved"
    echo
    echo "$(nproc) CPUs; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Seconds, fastest / median. Ratios: median GC wall time over the -qg (one GC thread) median and over GHC -N2's."
    echo
    echo "| workload | configuration | GC CPU | GC wall | total wall | work balance | GC wall / -qg | GC wall / GHC |"
    echo "|---|---|---|---|---|---|---|---|"
    for w in $workloads; do
        base=$(stat $w 0 2 | cut -d' ' -f2)
        ghc=-; [ $n_cfg = 4 ] && ghc=$(stat $w 3 2 | cut -d' ' -f2)
        for ((c = 0; c < n_cfg; c++)); do
            read -r cf cm <<<"$(stat $w $c 1)"
            read -r wf wm <<<"$(stat $w $c 2)"
            read -r tf tm <<<"$(stat $w $c 3)"
            bal=$(cut -d' ' -f4 "$work/$w.$c.0.t")
            r1=$(awk -v a="$wm" -v b="$base" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }')
            r2=$(awk -v a="$wm" -v b="$ghc" 'BEGIN { printf (b + 0 > 0 ? "%.2f" : "-"), a / b }')
            echo "| $w ${used[$w]} | ${labels[$c]} | $cf / $cm | $wf / $wm | $tf / $tm | ${bal}% | $r1 | $r2 |"
        done
    done
    echo
    echo "Configurations: ${labels[1]} is the default (the work rule, Note [Parallel only when it pays]);"
    echo "par-all is -qb0 --parallel-gc-threshold=0 (every collection parallel, load-balanced)."
} >"$report"
cat "$report"
echo "pargc: wrote $report" >&2
exit $fail
