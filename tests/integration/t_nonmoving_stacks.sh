#!/bin/bash
# Deep stacks under the concurrent nonmoving mark (Note [Lazy stack marking]
# in rts/sm/nonmoving_mark.c): bench/deepstack keeps a deep stack of old,
# untouched chunks under a churn that runs concurrent cycles, then returns
# through every chunk. The start pauses leave those chunks to the mark
# thread, which must grey every frame's slots: in the debug way (-DS) every
# final pause checks that everything reachable (the cells the frames hold
# among it) was marked, and each level's cell must come back. Results must
# equal the copying collector's. (A thread that pops frames of a chunk no
# one has marked yet is check_thr_nonmoving's stack_popped_* tests.)
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

DS=build/bench/thr/deepstack
DSD=build/bench/thr_debug/deepstack
sfile=$(mktemp)
trap 'rm -f "$sfile"' EXIT

# syncs FILE: the "Gen 1 ... syncs" count of an -s report (concurrent cycles that ended).
syncs() { awk '$1 == "Gen" && $4 == "syncs," { gsub(",", "", $3); print $3 }' "$1"; }

t "deepstack under copying: the reference result"
run -- "$DS" 100000 200000 +RTS -N1 -RTS
rc_is 0
want=$OUT

for opts in "-N1 -xn" "-N2 -xn -A64k" "-N1 -xn -G3 -A64k" "-N1 -xn -kc4k"; do
    t "deepstack $opts: same result, concurrent cycles ran"
    run -- "$DS" 100000 200000 +RTS $opts -s"$sfile" -RTS
    rc_is 0
    out_is "$want"
    n=$(syncs "$sfile")
    [ "${n:-0}" -gt 0 ] && ok || bad "no concurrent cycle ended (syncs '${n:-}')"
done

run -- "$DS" 5000 20000 +RTS -N1 -RTS
want=$OUT
for opts in "-N1 -xn -A1m" "-N2 -xn -A1m -kc4k"; do
    t "deepstack, debug way, $opts -DS: every final pause verifies the marks"
    run -- "$DSD" 5000 20000 +RTS $opts -DS -s"$sfile" -RTS
    rc_is 0
    out_is "$want"
    n=$(syncs "$sfile")
    [ "${n:-0}" -gt 0 ] && ok || bad "no concurrent cycle ended (syncs '${n:-}')"
done
finish t_nonmoving_stacks
