#!/bin/bash
# The symmetric heap's benchmark (bench/README.md): bench/shmem.c on hsrts's
# local backend (hsrts-shmemrun), hsrts's MPI backend (mpirun) and Open MPI's
# own OpenSHMEM (oshrun), side by side, interleaved run by run.
#
#   bench/shmem_run.sh            BENCH_RUNS runs (default 5) of: malloc/free
#                                 churn on 2 and 4 PEs, put/get bandwidth on
#                                 2 PEs; writes bench/results/<date>-<host>-shmem.md
#   bench/shmem_run.sh --check    every configuration that builds, once, at a
#                                 tiny size; checks each run's output (no timing)
#
# Called by bench/run.sh (make bench, make check-bench) unless BENCH_WORKLOADS
# leaves out "shmem". A configuration that does not build or run is skipped
# with a note. Open MPI's OpenSHMEM crashes in shmem_finalize on these
# machines (after the program printed everything): its numbers are kept, with
# a note, when the run printed its last line ("done").
set -u
cd "$(dirname "$0")/.." || exit 2

mode=bench
case "${1:-}" in
    "") ;;
    --check) mode=check ;;
    -h | --help)
        sed -n '2,17s/^# \{0,1\}//p' "$0"
        exit 0
        ;;
    *)
        echo "bench/shmem_run.sh: unknown argument '$1' (try --help)" >&2
        exit 2
        ;;
esac
runs=${BENCH_RUNS:-5}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "bench/shmem_run.sh: BENCH_RUNS must be a positive integer, not '$runs'" >&2
    exit 2
fi
[ $mode = check ] && runs=1

work=build/bench/shmem-run-$mode
mkdir -p "$work"
rm -rf "${work:?}"/*
notes=()
note() {
    notes+=("$1")
    echo "note: $1" >&2
}
say() { printf '%s\n' "$*" >&2; }
make_quiet() { make --no-print-directory -s "$@" >"$work/make.log" 2>&1; }

# Sizes: churn iterations and live blocks; bandwidth's largest message and MiB per size.
if [ $mode = bench ]; then
    churn_args="20000 64"
    bw_args="$((4 << 20)) 256"
else
    churn_args="200 16"
    bw_args="$((64 << 10)) 1"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0

say "== symmetric heap: building"
if ! make_quiet build/bench/shmem build/bin/hsrts-shmemrun; then
    cat "$work/make.log" >&2
    say "bench/shmem_run.sh: hsrts's benchmark does not build"
    exit 1
fi
# label|how it is started|program
configs=("hsrts|local|build/bench/shmem")
if [ $mode = bench ]; then
    if grep -q '^HAVE_MPI = yes' mk/config.mk 2>/dev/null && make_quiet build/bench/mpi/shmem; then
        configs+=("hsrts mpi|mpi|build/bench/mpi/shmem")
    else
        note "hsrts's mpi backend skipped: libhsrts_mpi is not built (configure found no Open MPI)."
    fi
    if ! command -v oshcc >/dev/null || ! command -v oshrun >/dev/null; then
        note "Open MPI's OpenSHMEM skipped: oshcc or oshrun is not installed (make bench-deps installs openmpi-bin and libopenmpi-dev)."
    elif ! make_quiet build/bench/oshmem/shmem; then
        note "Open MPI's OpenSHMEM skipped: oshcc failed: $(grep -m1 -i error "$work/make.log" | cut -c1-160)"
    else
        configs+=("OpenSHMEM (Open MPI)|osh|build/bench/oshmem/shmem")
    fi
fi

launcher() { # how np: the command that starts np PEs
    case $1 in
        local) echo "build/bin/hsrts-shmemrun -np $2" ;;
        mpi) echo "mpirun --oversubscribe -np $2" ;;
        osh) echo "oshrun --oversubscribe -np $2" ;;
    esac
}

# One line per measurement in $raw: label|test|np|run|metric|bytes|value
raw=$work/raw.txt
: >"$raw"
failed=0
passed=0
declare -A osh_crash_noted
run_one() { # label how program test np run
    local label=$1 how=$2 prog=$3 test=$4 np=$5 r=$6 args
    args=$churn_args
    [ "$test" = bw ] && args=$bw_args
    local base="$work/$(echo "$label.$test.$np.$r" | tr -c 'A-Za-z0-9.\n' '_')"
    # shellcheck disable=SC2086
    timeout 600 $(launcher "$how" "$np") "$prog" "$test" $args >"$base.out" 2>"$base.err"
    local status=$?
    if ! grep -qx done "$base.out"; then
        say "   FAILED (exit $status): $label $test on $np PEs"
        head -n 5 "$base.err" >&2
        failed=$((failed + 1))
        return
    fi
    if [ $status != 0 ]; then
        if [ "$how" = osh ]; then
            if [ -z "${osh_crash_noted[x]:-}" ]; then
                osh_crash_noted[x]=1
                note "Open MPI's OpenSHMEM exits with status $status after the benchmark printed all of its results (it crashes in shmem_finalize here: $(grep -m1 -o 'Caught signal [0-9]* ([^)]*)' "$base.err")); its numbers are kept."
            fi
        else
            say "   FAILED (exit $status after its results): $label $test on $np PEs"
            failed=$((failed + 1))
            return
        fi
    fi
    passed=$((passed + 1))
    awk -v l="$label" -v t="$test" -v n="$np" -v r="$r" '
        $1 == "churn_ns" || $1 == "barrier_ns" {print l "|" t "|" n "|" r "|" $1 "||" $2}
        $1 == "put" || $1 == "get" || $1 == "memcpy" {print l "|" t "|" n "|" r "|" $1 "|" $2 "|" $3}
    ' "$base.out" >>"$raw"
}

jobs=()
for ((r = 1; r <= runs; r++)); do
    for c in "${configs[@]}"; do
        jobs+=("$c|churn|2|$r" "$c|churn|4|$r" "$c|bw|2|$r")
    done
done
say "== symmetric heap: ${#jobs[@]} runs (${#configs[@]} configurations x 3 x $runs, interleaved)"
for ((i = 0; i < ${#jobs[@]}; i++)); do
    IFS='|' read -r label how prog test np r <<<"${jobs[$i]}"
    say "[$((i + 1))/${#jobs[@]}] $label: $test on $np PEs, run $r/$runs"
    run_one "$label" "$how" "$prog" "$test" "$np" "$r"
done

if [ $mode = check ]; then
    for n in "${notes[@]}"; do say "skipped: $n"; done
    echo "check-bench (symmetric heap): $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
fi

# ---- the report --------------------------------------------------------------
# For each (label, metric, bytes, np): the median and the best of the runs
# (the lowest ns, the highest MB/s).
stats=$work/stats.txt
awk -F'|' '{k = $1 "|" $3 "|" $5 "|" $6; v[k] = v[k] " " $7}
    END {for (k in v) print k "|" v[k]}' "$raw" |
    while IFS='|' read -r label np metric bytes values; do
        read -ra xs <<<"$values"
        sorted=$(printf '%s\n' "${xs[@]}" | sort -g)
        n=${#xs[@]}
        median=$(sed -n "$(((n + 1) / 2))p" <<<"$sorted")
        if [ $((n % 2)) = 0 ]; then
            median=$(awk -v a="$median" -v b="$(sed -n "$((n / 2 + 1))p" <<<"$sorted")" 'BEGIN {print (a + b) / 2}')
        fi
        case $metric in
            *_ns) best=$(head -n 1 <<<"$sorted") ;;
            *) best=$(tail -n 1 <<<"$sorted") ;;
        esac
        echo "$label|$np|$metric|$bytes|$median|$best|$n"
    done >"$stats"

get() { # label np metric bytes field(5 median, 6 best)
    awk -F'|' -v l="$1" -v n="$2" -v m="$3" -v b="$4" -v f="$5" \
        '$1 == l && $2 == n && $3 == m && $4 == b {print $f; exit}' "$stats"
}
fmt() { [ -n "$1" ] && printf '%.0f' "$1" || printf -- '-'; }
ratio() { # a b
    if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; else printf -- '-'; fi
}
cell() { # label np metric bytes: "median (best)"
    local m b
    m=$(get "$1" "$2" "$3" "$4" 5)
    b=$(get "$1" "$2" "$3" "$4" 6)
    [ -n "$m" ] && printf '%s (%s)' "$(fmt "$m")" "$(fmt "$b")" || printf -- '-'
}

labels=()
for c in "${configs[@]}"; do labels+=("${c%%|*}"); done
peer="OpenSHMEM (Open MPI)"
date=$(date +%Y-%m-%d)
host=$(hostname -s 2>/dev/null || hostname)
out_dir=${BENCH_OUT:-bench/results}
mkdir -p "$out_dir"
report=$out_dir/$date-$host-shmem.md
cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
commit=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo "+changes")
ompi_v=$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)
{
    echo "# Symmetric heap benchmark, $date, $host"
    echo
    echo "hsrts $commit; ${cpu_model:-unknown CPU}, $(nproc) cores; Open MPI ${ompi_v:-not installed};"
    echo "$runs runs of each configuration, interleaved. Each cell: median (best) of the runs."
    echo "Raw lines: \`$(basename "$report" .md).raw.txt\`."
    echo
    echo "## Memory calls: ns per call (shmem_malloc or shmem_free, each ending in a barrier)"
    echo
    echo "A ring of 64 live blocks of 16 B to 96 KiB; each iteration frees one and allocates one."
    echo "\"barrier\" is shmem_barrier_all alone, the same number of times: the floor of a memory call."
    echo
    printf '| PEs | what |'
    for l in "${labels[@]}"; do printf ' %s |' "$l"; done
    printf ' hsrts / %s (medians) |\n' "$peer"
    printf '|---|---|'
    for l in "${labels[@]}"; do printf -- '---|'; done
    printf -- '---|\n'
    for np in 2 4; do
        for m in churn_ns barrier_ns; do
            printf '| %s | %s |' "$np" "$([ $m = churn_ns ] && echo "malloc/free" || echo barrier)"
            for l in "${labels[@]}"; do printf ' %s |' "$(cell "$l" $np $m "")"; done
            printf ' %s |\n' "$(ratio "$(get hsrts $np $m "" 5)" "$(get "$peer" $np $m "" 5)")"
        done
    done
    for dir in put get; do
        echo
        echo "## $dir bandwidth, PE 0 to PE 1 (2 PEs): MB/s"
        echo
        echo "\"memcpy\" is the same copies between private buffers in PE 0 (hsrts's run)."
        echo
        printf '| bytes |'
        for l in "${labels[@]}"; do printf ' %s |' "$l"; done
        printf ' memcpy | hsrts / memcpy | hsrts / %s |\n' "$peer"
        printf '|---|'
        for l in "${labels[@]}"; do printf -- '---|'; done
        printf -- '---|---|---|\n'
        for bytes in $(awk -F'|' -v d="$dir" '$3 == d {print $4}' "$stats" | sort -un); do
            printf '| %s |' "$bytes"
            for l in "${labels[@]}"; do printf ' %s |' "$(cell "$l" 2 $dir "$bytes")"; done
            printf ' %s |' "$(cell hsrts 2 memcpy "$bytes")"
            printf ' %s |' "$(ratio "$(get hsrts 2 $dir "$bytes" 5)" "$(get hsrts 2 memcpy "$bytes" 5)")"
            printf ' %s |\n' "$(ratio "$(get hsrts 2 $dir "$bytes" 5)" "$(get "$peer" 2 $dir "$bytes" 5)")"
        done
    done
    if [ ${#notes[@]} -gt 0 ]; then
        echo
        echo "## Notes"
        echo
        for n in "${notes[@]}"; do echo "- $n"; done
    fi
} >"$report"
cp "$raw" "$out_dir/$date-$host-shmem.raw.txt"
cat "$report"
say "== wrote $report"
[ $failed -eq 0 ]
