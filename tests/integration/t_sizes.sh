#!/bin/bash
# Sizes through every entry point of the allocation API, in both ways (Note
# [Impossible sizes] in rts/sm/alloc.c): sizes no heap can hold end with one
# line naming the call, or GHC's heap-overflow message under -M, and exit
# 251; a size that wraps is never turned into a small object; the sizes
# around every rounding boundary give objects of exactly their size.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

u64() { printf '%u' "$1"; } # bash arithmetic is signed; print it unsigned
MAX58=$((1 << 58))          # the largest count the array entries accept

for way in v debug; do
    P=build/tests/progs/$way/alloc_sizes
    XR="-xr64g"
    line() { # entry n unit see [reservation]
        echo "alloc_sizes: $1: out of memory (requested $2 $3, more than fits in the heap's ${5:-$((64 << 30))}-byte address space; see $4)"
    }

    t "byte arrays of 2^64-8 .. 2^64-1 bytes are refused ($way)"
    for entry in byte-array pinned-byte-array; do
        for k in 8 7 6 5 4 3 2 1; do
            n=$(u64 $((-k)))
            run -- $P $entry "$n" +RTS $XR -RTS
            rc_is 251
            err_is "$(line rts_new_$(echo $entry | tr - _) "$n" bytes -xr)"
            out_is ""
        done
    done

    t "arrays of (StgWord)-1, 2^63, 2^58+1 and 2^58 elements are refused ($way)"
    for entry in array small-array; do
        for n in $(u64 -1) $(u64 $((1 << 63))) $((MAX58 + 1)) $MAX58; do
            run -- $P $entry "$n" +RTS $XR -RTS
            rc_is 251
            err_is "$(line rts_new_$(echo $entry | tr - _) "$n" elements -xr)"
        done
    done

    t "rts_alloc_large and rts_alloc_slow refuse (StgWord)-1, 2^58+1 and 2^58 words ($way)"
    for entry in alloc-large alloc-slow; do
        for n in $(u64 -1) $((MAX58 + 1)) $MAX58; do
            run -- $P $entry "$n" +RTS $XR -RTS
            rc_is 251
            err_is "$(line rts_alloc_large "$n" words -xr)"
        done
    done
    run -- $P alloc-large 0
    rc_is 1
    err_is "alloc_sizes: rts_alloc_large: a heap object has at least one word (requested 0)"

    t "a request larger than the -xr reservation, and one it cannot place now ($way)"
    n=$(((8 << 20) + 1))
    run -- $P byte-array $n +RTS -xr8m -RTS
    rc_is 251
    err_is "$(line rts_new_byte_array $n bytes -xr $((8 << 20)))"
    run -- $P byte-array $((7 << 20)) +RTS -xr8m -RTS
    rc_is 251
    err_lines_is 1
    err_has "alloc_sizes: heap exhausted: the heap's 8388608-byte address space (-xr) is full"

    t "a stack chunk larger than the reservation ($way)"
    run -- $P array 1 +RTS -ki1g -xr1g -RTS
    rc_is 251
    err_is "alloc_sizes: stack chunk: out of memory (requested $((1 << 30)) bytes, more than fits in the heap's $((1 << 30))-byte address space; see -ki, -kc and -xr)"
    run -- $P array 1 +RTS -ki512m -xr1g -RTS
    rc_is 0
    out_is "ok array 1"
    # -ki and -kc go up to 2^64-1 bytes, as in GHC: sizes no heap can hold.
    run -- $P array 1 +RTS -ki1e19 $XR -RTS
    rc_is 251
    err_is "alloc_sizes: stack chunk: out of memory (requested 10000000000000000000 bytes, more than fits in the heap's $((64 << 30))-byte address space; see -ki, -kc and -xr)"

    t "under -M, a request of -M or more is GHC's heap overflow ($way)"
    heap="alloc_sizes: Heap exhausted;
alloc_sizes: Current maximum heap size is 8388608 bytes (8 MB).
alloc_sizes: Use \`+RTS -M<size>' to increase it."
    # 2 header words + 2^20 - 2 words = 2048 blocks = -M8m.
    for args in "byte-array $(((1 << 23) - 16))" "byte-array $(u64 -1)" "array $(u64 -1)" \
        "small-array $((1 << 20))" "alloc-large $((1 << 20))" "pinned-byte-array $(u64 -7)"; do
        run -- $P $args +RTS -M8m -RTS
        rc_is 251
        err_is "$heap"
        out_is ""
    done

    t "sizes around every rounding boundary give objects of exactly that size ($way)"
    thr=$((4096 * 8 / 10)) # the large-object threshold in bytes
    for n in 0 1 7 8 9 $((thr - 17)) $((thr - 16)) $((thr - 15)) $((thr - 9)) $((thr - 8)) \
        4095 4096 4097 $(((1 << 20) - 16)) $(((1 << 20) + 1)) $(((3 << 20) + 5)); do
        for entry in byte-array pinned-byte-array; do
            run -- $P $entry $n
            rc_is 0
            out_is "ok $entry $n"
        done
    done
    for n in 0 1 127 128 129 1023 1024 1025 $((thr / 8 - 4)) $((thr / 8 - 3)) \
        $((thr / 8 - 2)) $(((1 << 17) + 1)); do
        for entry in array small-array; do
            run -- $P $entry $n
            rc_is 0
            out_is "ok $entry $n"
        done
    done
    for n in 2 3 $((thr / 8 - 1)) $((thr / 8)) $((thr / 8 + 1)) 512 513 $((1 << 18)); do
        for entry in alloc alloc-slow alloc-large; do
            run -- $P $entry $n
            rc_is 0
            out_is "ok $entry $n"
        done
    done
done

finish t_sizes
