#!/bin/bash
# The option system end to end: programs linked by tools/hsrts-link (see
# mk/flags.mk) run with +RTS blocks, GHCRTS and -with-rtsopts under each
# -rtsopts policy; stdout, stderr and the exit status are checked exactly.
# The test program prints its argv, the argv API and some option values,
# and returns 3.
set -u
cd "$(dirname "$0")/../.."
B=build/tests/flags
ADVICE="Link with hsrts-link -rtsopts to enable them."
. tests/integration/lib.sh

t "several +RTS blocks are removed from argv; the full argv is kept"
run -- $B/echo_all a +RTS -A8m -RTS b +RTS -G4 -RTS c
rc_is 3
err_is ""
out_is "argv: [a] [b] [c]
prog: [a] [b] [c]
full: [a] [+RTS] [-A8m] [-RTS] [b] [+RTS] [-G4] [-RTS] [c]
A=8388608 G=4 stats=0 sanity=0"

t "an unclosed +RTS runs to the end; -RTS without +RTS is dropped"
run -- $B/echo_all a -RTS b +RTS -G5
rc_is 3
out_has "argv: [a] [b]"$'\n'
out_has "G=5"

t "--RTS ends option processing and is removed; -- is kept"
run -- $B/echo_all 5 --RTS +RTS -S
out_has "argv: [5] [+RTS] [-S]"$'\n'
run -- $B/echo_all 5 -- +RTS -S
out_has "argv: [5] [--] [+RTS] [-S]"$'\n'
out_has "stats=0"

t "precedence: -with-rtsopts < GHCRTS < command line"
run -- $B/echo_all
out_has "A=2097152 G=3"
run GHCRTS="-G5 -A4m" -- $B/echo_all
out_has "A=4194304 G=5"
run GHCRTS="-G5 -A4m" -- $B/echo_all +RTS -G6
out_has "A=4194304 G=6"

t "errors first, one line each, then the usage once, exit 1"
run GHCRTS="-Gx" -- $B/echo_all +RTS -Abanana foo -xz
rc_is 1
out_is ""
err_has "echo_all: error in RTS option -Gx: unable to parse number 'x'
echo_all: error in RTS option -Abanana: unable to parse number 'banana'
echo_all: unexpected RTS argument: foo
echo_all: unknown RTS option: -xz
echo_all: 
echo_all: Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS <args>"
[ "$(grep -c 'Usage:' <<<"$ERR")" = 1 ] && ok || bad "usage printed more than once"

t "-? prints the usage on stderr and exits 1"
run -- $B/echo_default +RTS -?
rc_is 1
out_is ""
err_has "echo_default:   -A<size>  Sets the minimum allocation area size"
err_has "echo_default: RTS options may also be specified using the GHCRTS environment variable."

t "--info: the list on stdout, exit 0, the program does not run"
run -- $B/echo_all +RTS --info -RTS x
rc_is 0
err_is ""
out_has ' [("GHC RTS", "YES")'$'\n'' ,("hsrts version", "'
out_has ' ,("RTS way", "rts_v")'
out_has ' ,("Flag -with-rtsopts", "-G3 -A2m")'$'\n'
[ "$(tail -n 1 <<<"$OUT")" = " ]" ] && ok || bad "last line is not ' ]'"
# Every line is one element of a [(String, String)] literal.
bad_lines=$(sed -n '1{/^ \[("[^"]*", "[^"]*")$/d;p};2,${/^ ,("[^"]*", "\([^"\\]\|\\.\)*")$/d;/^ ]$/d;p}' <<<"$OUT")
[ -z "$bad_lines" ] && ok || bad "lines not in [(String, String)] form: $bad_lines"
case $OUT in *argv:*) bad "the program ran" ;; *) ok ;; esac

t "--info escapes the -with-rtsopts string as a Haskell string"
run -- $B/echo_quote +RTS --info
out_has ' ,("Flag -with-rtsopts", "-A2m -po\"x\\y")'

t "default policy (some): unsafe options refused with hsrts-link advice"
run -- $B/echo_default +RTS -A8m
rc_is 1
out_is ""
err_is "echo_default: Most RTS options are disabled. $ADVICE"
run GHCRTS=-K1m -- $B/echo_default
rc_is 1
err_is "echo_default: Most RTS options are disabled. $ADVICE"
run -- $B/echo_default +RTS -T -s -RTS x
rc_is 3
out_has "argv: [x]"
run -- $B/echo_default +RTS -sgc.log
rc_is 1
run -- $B/echo_quiet +RTS -A8m
err_is "echo_quiet: Most RTS options are disabled."

t "-rtsopts=none: command-line options refused, GHCRTS ignored with a warning"
run -- $B/echo_none +RTS -T
rc_is 1
err_is "echo_none: RTS options are disabled. $ADVICE"
run -- $B/echo_none +RTS --info
rc_is 1
run GHCRTS=-G7 -- $B/echo_none x
rc_is 3
err_is "echo_none: Warning: Ignoring GHCRTS variable as RTS options are disabled. $ADVICE"
out_has "argv: [x]"
out_has "G=2"

t "-rtsopts=ignore: the command line goes to the program, GHCRTS applies"
run GHCRTS=-G7 -- $B/echo_ignore +RTS -A8m -RTS x
rc_is 3
err_is ""
out_has "argv: [+RTS] [-A8m] [-RTS] [x]"
out_has "A=4194304 G=7"

t "-rtsopts=ignoreAll: only -with-rtsopts applies"
run GHCRTS=-G7 -- $B/echo_ignore_all +RTS -G5 -RTS
rc_is 3
err_is ""
out_has "argv: [+RTS] [-G5] [-RTS]"
out_has "G=4"

t "flags of other ways name the runtime they need"
run -- $B/echo_all +RTS -N2
rc_is 1
err_has "echo_all: the flag -N2 requires the program to be built with the threaded runtime (libhsrts_thr)"
run -- $B/echo_all +RTS -DS
err_has "echo_all: the flag -DS requires the program to be built with the debug runtime (libhsrts_debug)"
run -- $B/echo_all +RTS -p
err_has "echo_all: the flag -p requires the program to be built with -prof"

t "the debug way: -D classes set, --info says rts_debug"
run -- $B/echo_debug +RTS -DS
rc_is 3
out_has "sanity=1"
run -- $B/echo_debug +RTS --info
out_has ' ,("RTS way", "rts_debug")'
run -- $B/echo_debug +RTS -Dx
rc_is 1
err_has "echo_debug: error in RTS option -Dx: unknown debug class 'x' (see -? for the classes)"

t "cross-checks are one-line errors, not aborts"
run -- $B/echo_all +RTS -xn -G1
rc_is 1
err_has "echo_all: the non-moving collector (--nonmoving-gc, -xn) needs at least two generations: it cannot be used with -G1"
run -- $B/echo_all +RTS -c -w
rc_is 1
err_has "echo_all: the mark-region collector (-w) and the compacting collector (-c) cannot be used together: choose one"
run -- $B/echo_all +RTS -w -xn
rc_is 1
err_has "echo_all: the mark-region collector (-w) cannot be used together with the non-moving collector"
run -- $B/echo_all +RTS -xn -c
rc_is 1
err_has "echo_all: the non-moving collector (--nonmoving-gc, -xn) cannot be used together with the compacting collector (-c)"
run -- $B/echo_all +RTS --nonmoving-dense-allocator-count=0
rc_is 1
run -- $B/echo_all +RTS -c101
rc_is 1
err_has "echo_all: error in RTS option -c101: value outside allowed range (0 - 100)"
run -- $B/echo_all +RTS -kc8k -kb8k
rc_is 1
err_has "echo_all: stack chunk buffer size (-kb) must be at most half the stack chunk size (-kc)"

t "hsrts-link refuses a way that is not built, and bad -rtsopts values"
RC=0
ERR=$(tools/hsrts-link --build-tree=. -threaded -o "$errfile.x" tests/integration/progs/flags_echo.c 2>&1) || RC=$?
rc_is 1
if [ -f build/lib/libhsrts_thr.a ]; then ok; else
    err_is "hsrts-link: the threaded runtime (libhsrts_thr) is not built in . (no ./build/lib/libhsrts_thr.a)"
fi
RC=0
ERR=$(tools/hsrts-link --build-tree=. -rtsopts=most -o "$errfile.x" x.c 2>&1) || RC=$?
rc_is 1
err_is "hsrts-link: unknown -rtsopts value 'most' (none, some, ignore, ignoreAll or all)"

t "hsrts-link against an installed hsrts (pkg-config, shared library)"
run LD_LIBRARY_PATH=$B/inst/lib -- $B/hello_installed a +RTS -A8m -RTS b
rc_is 0
out_is "hello: [a] [b]"
run LD_LIBRARY_PATH=$B/inst/lib -- $B/hello_installed +RTS --info
out_has ' ,("Flag -with-rtsopts", "-G3")'

t "hsrts-link -threaded links the threaded way; -N is its option"
run -- $B/hello_installed_thr a +RTS -N2 -RTS b
rc_is 0
out_is "hello: [a] [b]"
run -- $B/hello_installed_thr +RTS --info
out_has ' ,("RTS way", "rts_thr")'
run LD_LIBRARY_PATH=$B/inst/lib -- $B/hello_installed a +RTS -N2 -RTS b
rc_is 1
err_has "the flag -N2 requires the program to be built with the threaded runtime (libhsrts_thr)"
for bad in "-N0:bad value for -N" "-maxN0:bad value for -maxN" "-qn0:-qn must be 1 or greater" \
           "-e0:bad value for -e"; do
    run -- $B/hello_installed_thr +RTS "${bad%%:*}" -RTS
    rc_is 1
    err_has "hello_installed_thr: ${bad#*:}"
done

# ---- Where hsrts behaved differently from GHC 9.x (issue 9) ------------------

BT=build/bench/binarytrees
last_tree() { echo "long lived tree of depth $1"$'\t'" check: $(((1 << ($1 + 1)) - 1))"; }
AWARN="binarytrees: maximum heap size (-M) is smaller than minimum alloc area size (-A)"

t "a small -M runs a program whose live data fits, as GHC does"
# -M1m with the default -A4m: GHC's warning, -A becomes 1m, and no overflow
# while nothing (in blocks) survives a major collection.
for opts in "-M1m" "-M1m -A1m" "-M1m -A4m"; do
    run -- $BT 6 +RTS $opts -RTS
    rc_is 0
    case $OUT in *"$(last_tree 6)") ok ;; *) bad "with $opts: $OUT" ;; esac
    if [ "$opts" = "-M1m -A1m" ]; then err_is ""; else err_is "$AWARN"; fi
done
# GHC 9.x: -M4m -A1m runs depth 14 (its live data fits beside a 1m nursery);
# -M4m -A4m does not (the nursery leaves no room for an old generation).
run -- $BT 14 +RTS -M4m -A1m -RTS
rc_is 0
case $OUT in *"$(last_tree 14)") ok ;; *) bad "-M4m -A1m: $OUT" ;; esac
err_is ""

t "live data that does not fit a small -M is GHC's heap overflow"
for opts in "-M1m" "-M1m -A1m" "-M4m -A4m"; do
    depth=10
    [ "$opts" = "-M4m -A4m" ] && depth=14
    run -- $BT $depth +RTS $opts -RTS
    rc_is 251
    err_has "binarytrees: Heap exhausted;"
    err_has "binarytrees: Current maximum heap size is "
done

t "-xb below the minimum address: GHC's warning"
run -- $BT 5 +RTS -xb0x100000 -RTS
rc_is 0
err_is "binarytrees: Provided heap start address 0x100000 is lower than minimum address 0x200000000"
run -- $BT 5 +RTS -xb0x200000000 -RTS
rc_is 0
err_is ""

t "size bounds as GHC prints them"
for f in "-M1 4096 18446744073709551615" "-H1 4096 18446744073709551615" \
    "-O1 4096 18446744073709551615" "-Mgrace=1 4096 18446744073709551615" \
    "-ki1 8 18446744073709551615" "-kc1 8 18446744073709551615" \
    "-kb1 8 18446744073709551615" "-K5g 0 4294967295" \
    "-A1 8192 9223372036854775807" "-n1 8192 9223372036854775807" \
    "-xq1 4096 9223372036854775807" "-xr1 1048576 18446744073709551615"; do
    set -- $f
    run -- $B/echo_all +RTS $1 -RTS
    rc_is 1
    err_has "echo_all: error in RTS option $1: size outside allowed range ($2 - $3)"
done
run -- $B/echo_all +RTS -M1e19 -O1e10 -Mgrace=1e19 -RTS
rc_is 3
err_is ""

t "-F-1, -Fd-1 and -m101 are GHC's bad RTS option"
for f in -F-1 -Fd-1 -m101 -m-1; do
    run -- $B/echo_all +RTS $f -RTS
    rc_is 1
    case $ERR in "echo_all: bad RTS option: $f"$'\n'*) ok ;; *) bad "$f: $ERR" ;; esac
done

t "-xt: GHC 9.12's message"
for f in -xt -xtfoo; do
    run -- $B/echo_all +RTS $f -RTS
    rc_is 1
    case $ERR in "echo_all: The -xt option has been removed (#16795)"$'\n'*) ok ;; *) bad "$f: $ERR" ;; esac
done

finish t_flags
