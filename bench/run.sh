#!/bin/bash
# The benchmark runner: every workload on hsrts and on its peers, side by
# side in one run. See bench/README.md.
#
#   bench/run.sh            build everything, run every configuration RUNS
#                           times interleaved (A B C A B C ...), write
#                           bench/results/<date>-<host>.md and its plots
#   bench/run.sh --check    build everything, run each configuration once at
#                           a tiny size and check its result (make check-bench)
#
# Environment knobs (all optional):
#   BENCH_RUNS=3                        runs per configuration
#   BENCH_WORKLOADS="binarytrees ..."   which workloads, in this order ("shmem":
#                                       the symmetric heap's, bench/shmem_run.sh,
#                                       run after the others; in by default)
#   BENCH_SIZE_<workload>="args"        a workload's size arguments, e.g.
#                                       BENCH_SIZE_largeheap="2048 2"
#   BENCH_OUT=bench/results             where the report and plots go
#   BENCH_BASELINE=<git revision>       also build hsrts at that revision (in
#                                       a worktree under build/) and run it
#                                       as "hsrts@<rev>", interleaved with
#                                       the rest: a change measured against
#                                       the previous commit in one run
#   BENCH_ONLY="<regex>"                keep only the configurations whose
#                                       label matches, e.g. '^hsrts(@|$)'
#
# A peer whose toolchain or library is missing, a configuration the runtime
# does not implement yet and a workload that cannot run are skipped with a
# note in the report and on the terminal, never silently. No timing is ever
# judged here; a run fails only when its program fails or its output
# differs from hsrts's.
set -u
cd "$(dirname "$0")/.." || exit 2

mode=bench
case "${1:-}" in
    "") ;;
    --check) mode=check ;;
    -h | --help)
        sed -n '2,22s/^# \{0,1\}//p' "$0"
        exit 0
        ;;
    *)
        echo "bench/run.sh: unknown argument '$1' (try --help)" >&2
        exit 2
        ;;
esac

runs=${BENCH_RUNS:-3}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "bench/run.sh: BENCH_RUNS must be a positive integer, not '$runs'" >&2
    exit 2
fi
[ $mode = check ] && runs=1
all_workloads="binarytrees allocdrop mutarray mapchurn largeheap lazystream"
workloads=${BENCH_WORKLOADS:-$all_workloads shmem}
# The symmetric heap's workload has a runner and a report of its own.
run_shmem=no
if [[ " $workloads " == *" shmem "* ]]; then
    run_shmem=yes
    workloads=$(echo " $workloads " | sed 's/ shmem / /g')
    if [ -z "${workloads// /}" ]; then
        [ $mode = check ] && exec bench/shmem_run.sh --check
        exec bench/shmem_run.sh
    fi
fi
# The large-heap workload's pauses are plotted.
pause_workload=largeheap

# Report sizes (the README explains each) and the tiny sizes of --check.
declare -A size tiny what
size[binarytrees]="21"
tiny[binarytrees]="6"
what[binarytrees]="binary-trees (Benchmarks Game): short-lived trees around a long-lived one; args: depth"
size[allocdrop]="1000 500000"
tiny[allocdrop]="100 100"
what[allocdrop]="lists built, summed and dropped: the allocation fast path; args: length, repetitions"
size[mutarray]="4000000 20000000"
tiny[mutarray]="1000 20000"
what[mutarray]="an old array of pointers receiving writes of young boxes: card marking; args: elements, writes"
size[mapchurn]="1000000 500000"
tiny[mapchurn]="1000 5000"
what[mapchurn]="persistent AVL map, insert/delete/lookup churn over a live set in the old generation; args: live entries, steps"
size[largeheap]="1200 2"
tiny[largeheap]="2 2"
what[largeheap]="1.2 GiB live (hsrts layout) of lists in an array, replaced in FIFO order: major GCs and pauses; args: live MiB, churn rounds"
size[lazystream]="20000000"
tiny[lazystream]="2000"
what[lazystream]="lazy stream pipeline gen, map, split (selector thunks), zip, evaluated with rts_eval: thunks, updates, selector thunks; args: elements"

date=$(date +%Y-%m-%d)
host=$(hostname -s 2>/dev/null || hostname)
out_dir=${BENCH_OUT:-bench/results}
# One work directory per mode, so that a check-bench does not wipe a running bench.
work=build/bench/run-$mode
mkdir -p "$work"
rm -rf "${work:?}"/*
notes=()
note() {
    notes+=("$1")
    echo "note: $1" >&2
}

say() { printf '%s\n' "$*" >&2; }

# ---------------------------------------------------------------------------
# Build. Each program is one make target; a target that fails is a skipped
# configuration with the reason noted.

make_quiet() { make --no-print-directory -s "$@" >"$work/make.log" 2>&1; }

say "== building the libraries and the tools"
if ! make_quiet libs build/bench/tools/rss build/bench/tools/memcpy_bw; then
    cat "$work/make.log" >&2
    say "bench/run.sh: the hsrts library or the tools do not build; nothing to measure"
    exit 1
fi

have_rts_eval=no
grep -q 'rts_eval' include/rts/*.h include/*.h 2>/dev/null && have_rts_eval=yes

# Drop workloads that cannot be built at all; say why.
kept=""
for w in $workloads; do
    if [ -z "${what[$w]:-}" ]; then
        echo "bench/run.sh: unknown workload '$w' (known: $all_workloads)" >&2
        exit 2
    fi
    if [ "$w" = lazystream ] && [ $have_rts_eval = no ]; then
        note "lazystream skipped: needs rts_eval (issue #3, Foundation II), not in this tree yet."
        continue
    fi
    v="BENCH_SIZE_$w"
    [ -n "${!v:-}" ] && size[$w]=${!v}
    kept="$kept $w"
done
workloads=$kept

# Configurations: "label|kind|program dir|extra arguments". The program for
# workload w is <dir>/<w>. Kinds say how to read the runtime's statistics:
# ghcstats (+RTS -S, both hsrts and GHC), benchstats (a "bench-stats:" line
# on stderr), none.
configs=()
add_config() { configs+=("$1|$2|$3|$4"); }

say "== building hsrts's workloads"
hs_ok=yes
for w in $workloads; do
    make_quiet build/bench/$w build/bench/debug/$w || {
        cat "$work/make.log" >&2
        hs_ok=no
    }
done
if [ $hs_ok = no ]; then
    say "bench/run.sh: hsrts's workloads do not build"
    exit 1
fi
add_config "hsrts" ghcstats build/bench ""
add_config "hsrts -A64m" ghcstats build/bench "-A64m"
add_config "hsrts -G3" ghcstats build/bench "-G3"
# Old-generation collectors: -c (compacting) and -w (mark-region) are in
# the runtime; one not built yet (-xn) is accepted with a warning and no
# effect: probing each keeps this list right as they land.
for flag in -c -w -xn; do
    msg=$(build/bench/binarytrees 4 +RTS $flag -RTS 2>&1 >/dev/null)
    if [ $? -ne 0 ] || [ -n "$msg" ]; then
        note "hsrts $flag skipped: $(echo "$msg" | head -n 1 | sed 's/^[^:]*: //')"
    else
        add_config "hsrts $flag" ghcstats build/bench "$flag"
    fi
done
if make_quiet build/lib/libhsrts_thr.a 2>/dev/null; then
    thr_ok=yes
    for w in $workloads; do make_quiet build/bench/thr/$w || thr_ok=no; done
    if [ $thr_ok = yes ]; then
        add_config "hsrts thr -N1" ghcstats build/bench/thr "-N1"
        add_config "hsrts -N2" ghcstats build/bench/thr "-N2"
        add_config "hsrts -N2 -qg" ghcstats build/bench/thr "-N2 -qg"
        add_config "hsrts -N2 par-all" ghcstats build/bench/thr "-N2 -qb0 --parallel-gc-threshold=0"
        # -xn in the threaded way: the concurrent mark (a mark thread beside the program's).
        add_config "hsrts thr -xn" ghcstats build/bench/thr "-N1 -xn"
    else
        note "hsrts -N2 skipped: the workloads do not build against libhsrts_thr."
    fi
else
    note "hsrts -N2 skipped: the threaded way (libhsrts_thr) is not built by this tree yet."
fi

# Workloads a peer cannot express, with the reason (noted, never silent).
declare -A not_applicable
for p in "Boehm GC" "glibc malloc" "jemalloc" "arena (no GC)"; do
    not_applicable["lazystream|$p"]="thunks, updates and selector thunks are what it measures; a C version would be a lazy runtime of its own"
done
for w in $workloads; do
    for k in "${!not_applicable[@]}"; do
        [ "${k%%|*}" = "$w" ] && note "$w on ${k#*|} skipped: ${not_applicable[$k]}."
    done
done

# Build one peer for every workload; on failure note why and skip it.
build_peer() { # label dir why-if-missing
    local w failed=""
    for w in $workloads; do
        [ -n "${not_applicable[$w|$1]:-}" ] && continue
        make_quiet "$2/$w" || failed="$failed $w"
    done
    if [ -n "$failed" ]; then
        note "$1 skipped: building$failed failed ($3): $(grep -m1 -i 'error' "$work/make.log" | cut -c1-160)"
        return 1
    fi
}

say "== building the peers"
if ! command -v ghc >/dev/null 2>&1; then
    note "GHC skipped: ghc is not installed (make bench-deps installs it)."
elif build_peer GHC build/bench/ghc "ghc"; then
    ghc_v=$(ghc --numeric-version)
    add_config "GHC" ghcstats build/bench/ghc ""
    add_config "GHC -A4m" ghcstats build/bench/ghc "-A4m"
    add_config "GHC -A64m" ghcstats build/bench/ghc "-A64m"
    # The peers of hsrts -c and -w: GHC's compacting and mark-region old generations.
    add_config "GHC -c" ghcstats build/bench/ghc "-c"
    add_config "GHC -w" ghcstats build/bench/ghc "-w"
    # The peer of hsrts -xn: GHC's nonmoving old generation (marked synchronously
    # in its non-threaded runtime, as hsrts's vanilla way does).
    add_config "GHC -xn" ghcstats build/bench/ghc "-xn"
    if [ "${thr_ok:-no}" = yes ]; then
        if build_peer "GHC -N2" build/bench/ghc-thr "ghc -threaded"; then
            add_config "GHC -N2" ghcstats build/bench/ghc-thr "-N2"
            # GHC's threaded runtime marks its nonmoving heap concurrently.
            add_config "GHC thr -xn" ghcstats build/bench/ghc-thr "-xn"
        fi
    fi
fi
if ! command -v ocamlopt >/dev/null 2>&1; then
    note "OCaml skipped: ocamlopt is not installed (make bench-deps installs ocaml-nox)."
elif build_peer OCaml build/bench/ocaml "ocamlopt"; then
    add_config "OCaml" benchstats build/bench/ocaml ""
fi
build_peer "Boehm GC" build/bench/boehm "libgc-dev; make bench-deps installs it" &&
    add_config "Boehm GC" benchstats build/bench/boehm ""
build_peer "glibc malloc" build/bench/glibc "a C compiler" &&
    add_config "glibc malloc" none build/bench/glibc ""
build_peer "jemalloc" build/bench/jemalloc "libjemalloc-dev; make bench-deps installs it" &&
    add_config "jemalloc" none build/bench/jemalloc ""
build_peer "arena (no GC)" build/bench/arena "a C compiler" &&
    add_config "arena (no GC)" none build/bench/arena ""

if [ -n "${BENCH_BASELINE:-}" ]; then
    base_rev=$(git rev-parse --short "$BENCH_BASELINE" 2>/dev/null) || {
        echo "bench/run.sh: BENCH_BASELINE: '$BENCH_BASELINE' is not a git revision" >&2
        exit 2
    }
    base_src=$PWD/build/bench/baseline-src
    say "== building hsrts at $base_rev (the baseline)"
    git worktree remove --force "$base_src" >/dev/null 2>&1
    rm -rf "$base_src"
    if git worktree add --detach "$base_src" "$base_rev" >"$work/make.log" 2>&1 &&
        (cd "$base_src" && for w in $workloads; do
            make --no-print-directory -s build/bench/$w || exit 1
        done) >>"$work/make.log" 2>&1; then
        add_config "hsrts@$base_rev" ghcstats "$base_src/build/bench" ""
    else
        note "hsrts@$base_rev skipped: it does not build: $(grep -m1 -i 'error' "$work/make.log" | cut -c1-160)"
    fi
fi
if [ -n "${BENCH_ONLY:-}" ]; then
    kept_configs=()
    for c in "${configs[@]}"; do
        [[ ${c%%|*} =~ $BENCH_ONLY ]] && kept_configs+=("$c")
    done
    configs=("${kept_configs[@]}")
    note "only the configurations matching '$BENCH_ONLY' were run (BENCH_ONLY)."
fi

# ---------------------------------------------------------------------------
# Running. One line per run in $raw:
#   workload|label|run|ok|wall|cpu|rss_kb|gc_s|copied|max_live|max_pause
# (empty fields: the runtime does not report that statistic).

raw=$work/raw.txt
: >"$raw"
declare -A ref_out took_sum took_n

# Seconds as "3m05s".
hms() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# The time still to go (ms): each remaining run is estimated by the mean of its
# configuration's runs so far, else of its workload's, else of all runs.
estimate_left() { # index of the next job
    local i=$1 j w c left=0 est all_sum=0 all_n=0 k
    for k in "${!took_sum[@]}"; do
        all_sum=$((all_sum + took_sum[$k]))
        all_n=$((all_n + took_n[$k]))
    done
    [ $all_n -eq 0 ] && { echo ""; return; }
    for ((j = i; j < ${#jobs[@]}; j++)); do
        IFS='|' read -r w c _ <<<"${jobs[$j]}"
        if [ -n "${took_n[$w|$c]:-}" ]; then
            est=$((took_sum[$w|$c] / took_n[$w|$c]))
        else
            local ws=0 wn=0
            for k in "${!took_sum[@]}"; do
                [ "${k%%|*}" = "$w" ] && ws=$((ws + took_sum[$k])) && wn=$((wn + took_n[$k]))
            done
            if [ $wn -gt 0 ]; then est=$((ws / wn)); else est=$((all_sum / all_n)); fi
        fi
        left=$((left + est))
    done
    echo "$left"
}

# Run one configuration of one workload; append its line to $raw.
run_one() { # workload label kind dir extra run
    local w=$1 label=$2 kind=$3 dir=$4 extra=$5 r=$6
    local args=${size[$w]}
    [ $mode = check ] && args=${tiny[$w]}
    local base="$work/$w.$(echo "$label" | tr -c 'A-Za-z0-9\n' '_').$r"
    local cmd=("$dir/$w")
    # shellcheck disable=SC2206
    cmd+=($args)
    case $kind in
        ghcstats) cmd+=(+RTS -S"$base.S" $extra -RTS) ;;
    esac
    BENCH_PAUSES="$base.pauses" build/bench/tools/rss "${cmd[@]}" >"$base.out" 2>"$base.err"
    local cost status wall cpu rss gc="" copied="" live="" pause="" ok=ok
    cost=$(grep '^wall_s ' "$base.err" | tail -n 1)
    read -r _ wall _ rss _ user _ sys _ status <<<"$cost"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.3f", u + s}')
    if [ "$status" != 0 ]; then
        ok="exit $status"
    elif [ -z "${ref_out[$w]:-}" ]; then
        ref_out[$w]=$base.out
    elif ! cmp -s "${ref_out[$w]}" "$base.out"; then
        ok="output differs"
    fi
    case $kind in
        ghcstats)
            if [ -f "$base.S" ]; then
                IFS='|' read -r gc copied live pause <<<"$(awk -v pauses="$base.pauses" '
                    /bytes copied during GC/ {gsub(",", "", $1); c = $1}
                    /bytes maximum residency/ {gsub(",", "", $1); l = $1}
                    /^  GC +time/ {gsub("s", "", $5); g = $5}
                    # Pauses: the collections and -xn syncs; the concurrent line gives
                    # the longest concurrent mark, which the mutators run beside.
                    /^  Gen +[0-9]+ / && !/concurrent|segments/ {p = $NF; sub("s", "", p); if (p + 0 > m) m = p + 0}
                    /\(Gen: +[0-9]+\)/ {print $5 > pauses}
                    END {printf "%s|%s|%s|%s", g, c, l, m + 0}' "$base.S")"
            fi
            ;;
        benchstats)
            # OCaml reports its top heap size instead of a residency.
            IFS='|' read -r gc copied live pause <<<"$(awk '/^bench-stats:/ {
                for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
                printf "%s|%s|%s|%s", v["gc_s"], v["copied_bytes"],
                    ("max_live_bytes" in v) ? v["max_live_bytes"] : v["heap_bytes"], v["max_pause_s"]}' "$base.err")"
            ;;
    esac
    echo "$w|$label|$r|$ok|$wall|$cpu|$rss|$gc|$copied|$live|$pause" >>"$raw"
    if [ "$ok" != ok ]; then
        say "   FAILED ($ok): ${cmd[*]}"
        grep -v '^wall_s ' "$base.err" | head -n 5 >&2
        if [ "$ok" = "output differs" ]; then
            diff "${ref_out[$w]}" "$base.out" | head -n 6 >&2
        fi
    fi
}

# The jobs, interleaved: for each workload, round r runs every configuration.
jobs=()
for w in $workloads; do
    for ((r = 1; r <= runs; r++)); do
        for c in "${configs[@]}"; do
            [ -n "${not_applicable[$w|${c%%|*}]:-}" ] && continue
            jobs+=("$w|${c%%|*}|$r|$c")
        done
    done
done
# --check also runs the debug way with the sanity checker, the strongest
# check of the workloads' roots and barriers (-A64k: many collections).
if [ $mode = check ]; then
    for w in $workloads; do jobs+=("$w|hsrts debug -DS|1|hsrts debug -DS|ghcstats|build/bench/debug|-DS -A64k"); done
fi

cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null)
cores=$(nproc)
mem=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)
say "== machine: ${cpu_model:-unknown CPU}, $cores cores, ${mem:-unknown memory}"
memcpy=""
if [ $mode = bench ]; then
    memcpy=$(build/bench/tools/memcpy_bw | awk '{print $2}')
    say "== memcpy bandwidth: $memcpy GB/s (best of 10 copies of 256 MiB)"
fi
say "== ${#jobs[@]} runs: $(echo $workloads | wc -w) workloads x ${#configs[@]} configurations x $runs"

# Milliseconds since the epoch (bash 5's EPOCHREALTIME, else date).
now_ms() {
    local t=${EPOCHREALTIME:-}
    if [ -n "$t" ]; then
        t=${t/./}
        echo $((${t:0:-3}))
    else
        date +%s%3N
    fi
}

start=$(now_ms)
for ((i = 0; i < ${#jobs[@]}; i++)); do
    IFS='|' read -r w label r _ kind dir extra <<<"${jobs[$i]}"
    left=$(estimate_left $i)
    so_far=$((($(now_ms) - start) / 1000))
    say "[$((i + 1))/${#jobs[@]}] $w, run $r/$runs: $label  ($(hms $so_far) so far${left:+, about $(hms $((left / 1000))) left})"
    t0=$(now_ms)
    run_one "$w" "$label" "$kind" "$dir" "$extra" "$r"
    took_sum[$w|$label]=$((${took_sum[$w|$label]:-0} + $(now_ms) - t0))
    took_n[$w|$label]=$((${took_n[$w|$label]:-0} + 1))
done

failed=$(awk -F'|' '$4 != "ok"' "$raw" | wc -l)
total=$(wc -l <"$raw")

shmem_failed=0
if [ $run_shmem = yes ]; then
    if [ $mode = check ]; then
        bench/shmem_run.sh --check || shmem_failed=1
    else
        bench/shmem_run.sh || note "the symmetric heap's benchmark had failed runs (see above)"
    fi
fi

if [ $mode = check ]; then
    awk -F'|' '$4 != "ok" {printf "FAIL %s on %s: %s\n", $1, $2, $4}' "$raw" >&2
    for n in "${notes[@]}"; do say "skipped: ${n/ skipped:/:}"; done
    echo "check-bench: $((total - failed)) passed, $failed failed"
    [ "$failed" -eq 0 ] && [ $shmem_failed = 0 ]
    exit
fi

# Everything the report needs besides the raw lines.
labels=()
for c in "${configs[@]}"; do labels+=("${c%%|*}"); done
ghc_v=${ghc_v:-}
ocaml_v=$(ocamlopt -version 2>/dev/null)
gcc_v=$(${CC:-gcc} -dumpfullversion 2>/dev/null)
libgc_v=$(dpkg-query -W -f='${Version}' libgc-dev 2>/dev/null)
jemalloc_v=$(dpkg-query -W -f='${Version}' libjemalloc-dev 2>/dev/null)
commit=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo "+changes")
declare -p date host runs memcpy cpu_model cores mem workloads pause_workload notes labels \
    size what ghc_v ocaml_v gcc_v libgc_v jemalloc_v commit >"$work/meta.sh"
exec bench/report.sh "$work" "$out_dir"
