#!/bin/bash
# The event log read back by the Haskell ghc-events library (what
# ThreadScope and eventlog2html use): tests/haskell/EventlogCheck.hs, built
# here with ghc, decodes every event of real runs, checks their order, and
# checks their figures against the -s report and the .hp file of the same
# run. Skipped, with a note, where ghc or ghc-events is missing (mk/deps.sh
# installs both in the check profile).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
root=$PWD
if ! command -v ghc >/dev/null || ! ghc-pkg --simple-output field ghc-events version >/dev/null 2>&1; then
    echo "note: ghc or the ghc-events library is missing (Debian: ghc libghc-ghc-events-dev);"
    echo "note: the event log is not checked with ghc-events"
    finish t_trace_ghc_events
    exit 0
fi
hsdir=$root/build/tests/haskell
checker=$hsdir/eventlog-check
if [ ! -x "$checker" ] || [ "$checker" -ot tests/haskell/EventlogCheck.hs ]; then
    mkdir -p "$hsdir"
    ghc -O0 -v0 -outputdir "$hsdir" -o "$checker" tests/haskell/EventlogCheck.hs || {
        echo "FAIL: the checker does not build"
        exit 1
    }
fi
bt=$root/build/bench/binarytrees
tp=$root/build/tests/progs/v/trace_prog
dir=$(mktemp -d)
trap 'rm -rf "$dir" "$errfile" "$errfile".*' EXIT
cd "$dir"

# check NAME LOG ARGS...: the checker's verdict on a log.
check() {
    t "$1"
    shift
    local out
    if out=$("$checker" "$@" 2>&1); then ok; else bad "$out"; fi
}

run -- "$bt" 16 +RTS -l -hT -i0.01 -sbt.stats -RTS
rc_is 0
check "binary-trees, -l -hT: decoded, ordered, agrees with -s and the .hp" \
    binarytrees.eventlog --stats bt.stats --hp binarytrees.hp

run -- "$root/build/bench/thr/largeheap" 24 2 +RTS -N2 -qb0 --parallel-gc-threshold=0 -l -slh.stats -RTS
rc_is 0
check "largeheap -N2, every collection parallel: GC threads' events on their capabilities" \
    largeheap.eventlog --stats lh.stats --par-gcs

# The nonmoving collector: its phases, and with -ln its census, in a concurrent run (the syncs
# counted against -s) and in the vanilla way (marked and swept in the pause: no sync).
run -- "$root/build/bench/thr/largeheap" 24 4 +RTS -N1 -xn -l -ln -slhn.stats -RTS
rc_is 0
syncs=$(awk '/syncs,/ {print $3}' lhn.stats)
check "largeheap -xn -ln, concurrent mark: the phases pair up, $syncs syncs as -s, the census" \
    largeheap.eventlog --stats lhn.stats --syncs "${syncs:-missing}" --census
run -- "$root/build/bench/largeheap" 24 4 +RTS -xn -l -slhv.stats -RTS
rc_is 0
check "largeheap -xn, vanilla way: a mark and a sweep per major collection, no sync, no census" \
    largeheap.eventlog --stats lhv.stats --syncs 0 --no-census

run -- "$bt" 14 +RTS -l -A64k -G3 -sbt3.stats -RTS
rc_is 0
check "binary-trees, three generations and a small nursery: agrees with -s" \
    binarytrees.eventlog --stats bt3.stats

run -- "$tp" alloc 300000 +RTS -l -hi -i0 -stp.stats -RTS
rc_is 0
check "user messages, markers and binary events, -hi census: all decoded, counted" \
    trace_prog.eventlog --stats tp.stats --hp trace_prog.hp --user 10 --markers 10 --binary 10

run -- "$tp" alloc 300000 +RTS -l-au -RTS
rc_is 0
check "-l-au: only user events (and the process's own facts)" trace_prog.eventlog --user 10 \
    --markers 10 --no-gc --no-threads

run TRACE_WRITER_FILE=copy.eventlog -- "$tp" writer 100000 +RTS -l -sw.stats -RTS
rc_is 0
check "a custom writer's copy decodes and agrees with -s" copy.eventlog --stats w.stats --user 10

run -- "$tp" suspend +RTS -l -RTS
rc_is 0
check "rts_suspend is a STOP_THREAD for a foreign call, rts_yield one for yielding" trace_prog.eventlog \
    --foreign-calls 1

run -- "$tp" threads 3 +RTS -l -RTS
rc_is 0
check "threads that call hs_thread_done, and the one that exits, end with ThreadFinished" \
    trace_prog.eventlog --finished 4

run -- "$tp" start 300000
rc_is 0
check "startEventLogging without -l: a complete log" trace_prog.eventlog --user 10 --no-threads

run -- "$tp" heap-overflow +RTS -M16m -l -hT -i0 -sho.stats -RTS
rc_is 251
check "heap overflow: complete, the collection cut short is closed" trace_prog.eventlog --cut \
    --stats ho.stats --hp trace_prog.hp

run -- "$tp" stack-overflow +RTS -K256k -l -sso.stats -RTS
rc_is 2
check "stack overflow: complete, agrees with -s" trace_prog.eventlog --cut --stats so.stats

run -- "$tp" exit 7 +RTS -l -hT -i0 -sex.stats -RTS
rc_is 7
check "shutdownHaskellAndExit: complete, agrees with -s and the .hp" trace_prog.eventlog \
    --stats ex.stats --hp trace_prog.hp

# The lazy example programs, built against the installed library.
inst=$root/build/tests/flags/inst
run PKG_CONFIG_PATH="$inst/lib/pkgconfig" -- make --no-print-directory -C "$root/examples" \
    OUT="$dir" CFLAGS="-O2" all
rc_is 0
export LD_LIBRARY_PATH=$inst/lib
# Linked with hs_init (safe options only): -l and -s to stderr are allowed.
run -- ./primes 3000 +RTS -l -s -RTS
rc_is 0
printf '%s\n' "$ERR" >p.stats
check "primes (thunks, selectors, updates): agrees with -s" primes.eventlog --stats p.stats
run -- ./fold 300000 +RTS -l -s -RTS
rc_is 0
printf '%s\n' "$ERR" >f.stats
check "fold: agrees with -s" fold.eventlog --stats f.stats
run -- ./selector 5000 +RTS -l -s -RTS
rc_is 0
printf '%s\n' "$ERR" >s.stats
check "selector: agrees with -s" selector.eventlog --stats s.stats

finish t_trace_ghc_events
