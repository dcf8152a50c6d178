#!/bin/bash
# The example compiler client (examples/) built against an *installed*
# hsrts through pkg-config, as a compiler's output would be, and run.
# Expected values are computed here, independently of the examples.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
inst=$PWD/build/tests/flags/inst   # installed by mk/flags.mk (make install prefix=...)
out=$PWD/build/tests/examples
rm -rf "$out"; mkdir -p "$out" # always rebuilt: the installed headers may have changed

t "the examples build with pkg-config against the installed library"
run PKG_CONFIG_PATH="$inst/lib/pkgconfig" -- make --no-print-directory -C examples OUT="$out" \
    CFLAGS="-O2 -Wall -Wextra -Werror" all
rc_is 0

first_primes() {
    local n=$1 c=2 found=0 d out=""
    while [ $found -lt "$n" ]; do
        for ((d = 2; d * d <= c; d++)); do ((c % d == 0)) && break; done
        if ((d * d > c)); then out+="${out:+ }$c"; found=$((found + 1)); fi
        c=$((c + 1))
    done
    echo "$out"
}

t "the README's cc command with a non-default prefix gives a program that runs"
# cc prog.c $(pkg-config --cflags --libs hsrts): the .pc file's rpath finds
# the shared library where it was installed, with no LD_LIBRARY_PATH.
flags=$(PKG_CONFIG_PATH="$inst/lib/pkgconfig" pkg-config --cflags --libs hsrts)
run -- ${CC:-cc} -o "$out/primes_readme" examples/primes.c $flags
rc_is 0
err_is ""
run -- env -u LD_LIBRARY_PATH "$out/primes_readme" 10
rc_is 0
out_is "$(first_primes 10)"
err_is ""
libs=$(env -u LD_LIBRARY_PATH ldd "$out/primes_readme" | grep libhsrts)
case $libs in *"$inst/lib/libhsrts.so.0"*) ok ;; *) bad "not the installed library: $libs" ;; esac

export LD_LIBRARY_PATH=$inst/lib

t "primes: the infinite list, lazily"
run -- "$out/primes" 40
rc_is 0
out_is "$(first_primes 40)"

t "selector thunks do not keep the second components alive"
n=5000
run -- "$out/selector" $n +RTS -T -RTS
rc_is 0
out_has "sum of firsts: $((n * (n + 1) / 2))"
live=$(echo "$OUT" | sed -n 's/^live before the sum: \([0-9]*\) bytes.*/\1/p')
leak=$((n * 512 * 24))
# The firsts alone: a cons cell, a selector or Int, per element, with slack.
bound=$((n * 80 + 256 * 1024))
if [ -n "$live" ] && [ "$live" -lt "$bound" ]; then ok; else
    bad "live data $live bytes, want below $bound (the leak would be $leak)"; fi

t "a strict fold over a lazy list runs in constant space"
run -- "$out/fold" 1000 +RTS -T -RTS
rc_is 0
out_has "sum: $((1000 * 1001 / 2))"
small=$(echo "$OUT" | sed -n 's/^most live data seen: \([0-9]*\) bytes/\1/p')
run -- "$out/fold" 2000000 +RTS -T -RTS
rc_is 0
out_has "sum: $((2000000 * 2000001 / 2))"
big=$(echo "$OUT" | sed -n 's/^most live data seen: \([0-9]*\) bytes/\1/p')
if [ -n "$small" ] && [ -n "$big" ] && [ "$big" -le $((small + 4096)) ]; then ok; else
    bad "live data grew with the list: $small bytes for 1000 elements, $big for 2000000"; fi

t "counter: compare-and-swap from several threads on capabilities, safepoints, a weak pointer"
for opts in "-N2" "-N4 -A64k" "-N2 -A8k -qg0 --parallel-gc-threshold=0"; do
    run -- "$out/counter" 4 20000 +RTS $opts -RTS
    rc_is 0
    out_has "count: $((4 * 20000))"
    out_has "weak pointer while the counter lives: the counter"
    out_has "weak pointer after: dead; finalizer ran 1 time(s)"
done

finish t_examples
