#!/bin/bash
# The core runtime end to end: the demo's output against values computed
# here, the -s summary's shape, and bad input refused with one clear line
# and a non-zero exit status (in both ways).
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

# binary-trees' expected lines for depth n, computed independently.
expected_trees() {
    local n=$1 min=4 max stretch d iters nodes
    max=$(( n < min + 2 ? min + 2 : n ))
    stretch=$((max + 1))
    echo "stretch tree of depth $stretch"$'\t'" check: $(( (1 << (stretch + 1)) - 1 ))"
    for ((d = min; d <= max; d += 2)); do
        iters=$((1 << (max - d + min)))
        nodes=$(( (1 << (d + 1)) - 1 ))
        echo "$iters"$'\t'" trees of depth $d"$'\t'" check: $((iters * nodes))"
    done
    echo "long lived tree of depth $max"$'\t'" check: $(( (1 << (max + 1)) - 1 ))"
}

for way in "" debug/; do
    bt=build/bench/${way}binarytrees
    for depth in 6 12; do
        for opts in "" "-A8k" "-G1" "-G3 -A16k" "-A64k -n8k"; do
            t "binarytrees $depth in ${way:-vanilla} with '$opts'"
            extra=""
            [ -n "$way" ] && extra="-DS"
            run -- $bt $depth +RTS $opts $extra -RTS
            rc_is 0
            out_is "$(expected_trees $depth)"
            err_is ""
        done
    done

    t "the -s summary (${way:-vanilla})"
    run -- $bt 10 +RTS -s -RTS
    rc_is 0
    err_has " bytes allocated in the heap"
    err_has " bytes copied during GC"
    err_has " bytes maximum residency ("
    err_has "  Gen  0 "
    err_has "  Gen  1 "
    err_has "  Productivity "

    b=build/tests/progs/${way:-v/}bad_input
    [ -z "$way" ] && b=build/tests/progs/v/bad_input

    t "an object with an invalid info table (${way:-vanilla})"
    for mode in bad-info bad-info-nested; do
        run -- $b $mode
        rc_is 254
        err_lines_is 1
        err_has "has an invalid info table"
        err_has "closure type 200"
    done

    t "a request larger than the address space (${way:-vanilla})"
    run -- $b huge-alloc
    rc_is 251
    err_lines_is 1
    err_has "bad_input: rts_alloc_large: out of memory (requested $((1 << 50)) words, "
    err_has "see -xr"
    run -- $b huge-array
    rc_is 251
    err_lines_is 1
    err_has "bad_input: rts_new_array: out of memory (requested $((1 << 45)) elements, "
    err_has "see -xr"

    t "hs_exit without hs_init (${way:-vanilla})"
    run -- $b exit-without-init
    rc_is 1
    err_is "bad_input: hs_exit: the runtime is not initialised (hs_exit without hs_init)"

    t "a heap larger than its -xr reservation (${way:-vanilla})"
    run -- $bt 16 +RTS -xr8m -RTS
    rc_is 251
    err_lines_is 1
    err_has "binarytrees: heap exhausted: the heap's 8388608-byte address space (-xr) is full"

    t "the OS refusing memory (${way:-vanilla})"
    run HSRTS_FAIL_OS_ALLOC=3 -- $bt 16
    rc_is 254
    err_has "malloc: failed on request for "

    t "rts_lock without hs_init (${way:-vanilla})"
    run -- $b lock-without-init
    rc_is 1
    err_is "bad_input: rts_lock: the runtime is not running (call hs_init first)"

    t "rts_unlock of a capability the thread does not hold (${way:-vanilla})"
    for mode in unlock-twice unlock-other-thread; do
        run -- $b $mode
        rc_is 1
        err_is "bad_input: rts_unlock: this thread does not hold capability 0"
    done

    t "rts_lock twice (${way:-vanilla})"
    run -- $b lock-twice
    rc_is 1
    err_is "bad_input: rts_lock: this thread already holds capability 0"

    t "popping a root frame out of order (${way:-vanilla})"
    run -- $b bad-pop
    rc_is 1
    err_lines_is 1
    err_has "is not the topmost frame"
done

t "the old generations that do not copy: -c and -w run without a word; -G1 disables them as GHC does"
for o in -c -w "-c -G3" "-w -G3" "-c30 -M16m"; do
    run -- build/bench/binarytrees 10 +RTS $o -RTS
    rc_is 0
    err_is ""
done
for o in -c -w; do
    run -- build/bench/binarytrees 5 +RTS $o -G1 -RTS
    rc_is 0
    err_is "binarytrees: WARNING: compact/sweep is incompatible with -G1; disabled"
done
t "-c30 (the default with -M): 6 MB live runs in -M10m, as under GHC (copying alone overflows)"
run -- build/bench/largeheap 6 2 +RTS -M10m -A1m -RTS
rc_is 0
out_has "largeheap: slots"
run -- build/bench/largeheap 6 2 +RTS -M10m -A1m -c100 -RTS
rc_is 251
err_has "largeheap: Heap exhausted;"
t "-c and -w: -S's per-collection bytes copied (moved) add up to -s's total"
for o in -c -w "-c -G3" "-w -G3"; do
    run -- build/bench/binarytrees 12 +RTS $o -S -RTS
    rc_is 0
    per=$(grep '(Gen: ' <<<"$ERR" | awk '{s += $2} END {print s}')
    total=$(grep 'bytes copied during GC' <<<"$ERR" | awk '{gsub(",", "", $1); print $1}')
    [ -n "$per" ] && [ "$per" = "$total" ] && ok || bad "$o: -S lines copy $per bytes, -s says $total"
    majors=$(grep -c '(Gen:  [12])' <<<"$ERR")
    [ "$majors" -gt 0 ] && ok || bad "$o: no collection of the old generation"
done
t "-c and -w: the debug way's sanity checker agrees with every collection"
for o in -c -w "-w -G3 -A64k"; do
    run -- build/bench/debug/binarytrees 10 +RTS $o -DS -RTS
    rc_is 0
    err_is ""
done

t "make install honours DESTDIR and prefix"
dest=$(mktemp -d)
run -- make --no-print-directory install DESTDIR="$dest" prefix=/opt/hsrts-test
rc_is 0
for f in include/hsrts/Rts.h include/hsrts/README.md include/hsrts/rts/Closures.h lib/libhsrts.a lib/libhsrts_debug.a \
         lib/libhsrts.so lib/libhsrts_debug.so lib/pkgconfig/hsrts.pc lib/pkgconfig/hsrts-debug.pc; do
    [ -e "$dest/opt/hsrts-test/$f" ] && ok || bad "$f was not installed under DESTDIR"
done
grep -qx 'prefix=/opt/hsrts-test' "$dest/opt/hsrts-test/lib/pkgconfig/hsrts.pc" && ok ||
    bad "hsrts.pc does not name the prefix (without DESTDIR)"
rm -rf "$dest"

finish t_core
