#!/bin/bash
# The symmetric heap on the local backend (rts/shmem/README.md): the test
# programs of tests/shmem/ as 1, 2, 4 and 8 PEs under hsrts-shmemrun, in the
# vanilla and the debug way (with SHMEM_DEBUG=1); the heap size settings;
# the debug mode catching PEs that pass different arguments; the launcher
# when a PE dies; and every refused input, with its one line and status.
# The MPI backend is t_shmem_mpi.sh.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/shmem/lib.sh

RUN=build/bin/hsrts-shmemrun
V=build/tests/shmem/v
D=build/tests/shmem/debug
# No test may hang: every run has a deadline far beyond its need.
TO="timeout 60"
CLEAN_ENV=(-u SHMEM_SYMMETRIC_HEAP_SIZE -u SHMEM_SYMMETRIC_SIZE -u SHMEM_DEBUG -u HSRTS_SHMEM_BASE
    -u HSRTS_SHMEM_FD -u HSRTS_SHMEM_PE -u HSRTS_SHMEM_NPES)
srun() { # [VAR=v ...] -- cmd...: run with the symmetric heap's variables unset unless given
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    run "${CLEAN_ENV[@]}" "${envs[@]}" -- $TO "$@"
}

heap=$((4 << 20))
for n in 1 2 4 8; do
    t "calls on $n PEs"
    srun SHMEM_SYMMETRIC_HEAP_SIZE=4M -- $RUN -np $n $V/calls $heap local
    rc_is 0
    pes_passed $n calls
    t "calls on $n PEs, debug way, SHMEM_DEBUG=1"
    srun SHMEM_SYMMETRIC_HEAP_SIZE=4M SHMEM_DEBUG=1 -- $RUN -n $n $D/calls $heap local
    rc_is 0
    pes_passed $n calls
    for p in osh_alloc osh_realloc osh_align; do
        t "$p on $n PEs"
        srun -- $RUN -np $n $V/$p
        rc_is 0
        pes_passed $n $p
    done
    t "osh_realloc on $n PEs, debug way, SHMEM_DEBUG=1"
    srun SHMEM_DEBUG=1 -- $RUN -np $n $D/osh_realloc
    rc_is 0
    pes_passed $n osh_realloc
done

for order in hs-first shmem-first; do
    for n in 1 4; do
        t "with hs_init ($order) on $n PEs"
        srun -- $RUN -np $n $V/with_hs $order
        rc_is 0
        pes_passed $n with_hs
        t "with hs_init ($order) on $n PEs, debug way, +RTS -DS -A64k"
        srun SHMEM_DEBUG=1 -- $RUN -np $n $D/with_hs $order +RTS -DS -A64k -RTS
        rc_is 0
        pes_passed $n with_hs
    done
done

t "installed: <mpp/shmem.h>, libhsrts and hsrts-shmemrun from make install"
srun -- build/tests/flags/inst/bin/hsrts-shmemrun -np 3 build/tests/shmem/installed/osh_alloc
rc_is 0
pes_passed 3 osh_alloc

t "PEs are bound to CPUs of their own when there are enough (--bind-to core), else not"
show_cpus='echo "$HSRTS_SHMEM_PE $(grep Cpus_allowed_list /proc/self/status | cut -f2)"'
ncpu=$(nproc)
mine=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
if [ "$ncpu" -ge 2 ]; then
    srun -- $RUN -np 2 sh -c "$show_cpus"
    rc_is 0
    cpus=$(echo "$OUT" | sort -n | awk '{print $2}' | tr '\n' ' ')
    first_two=$(python3 -c 'import os; c=sorted(os.sched_getaffinity(0)); print(c[0], c[1], "")')
    [ "$cpus" = "$first_two" ] && ok || bad "PE CPUs '$cpus', want '$first_two'"
else
    echo "note: one CPU: the two-PE binding check is skipped"
fi
srun -- $RUN --bind-to none -np 2 sh -c "$show_cpus"
rc_is 0
[ "$(echo "$OUT" | awk '{print $2}' | sort -u)" = "$mine" ] && ok || bad "unbound PEs: $OUT"
srun -- $RUN -np $((ncpu + 1)) sh -c "$show_cpus"
rc_is 0
[ "$(echo "$OUT" | awk '{print $2}' | sort -u)" = "$mine" ] && ok || bad "more PEs than CPUs: $OUT"
srun -- $RUN --bind-to socket -np 2 true
rc_is 1
err_has "--bind-to takes core or none, not 'socket'"

t "a program on its own is a job of one PE"
srun SHMEM_SYMMETRIC_HEAP_SIZE=4M -- $V/calls $heap local
rc_is 0
pes_passed 1 calls

# ---- the heap's size ------------------------------------------------------------

for spec in "SHMEM_SYMMETRIC_HEAP_SIZE 64k $((64 * 1024))" "SHMEM_SYMMETRIC_SIZE 3M $((3 << 20))" \
    "SHMEM_SYMMETRIC_HEAP_SIZE 1G $((1 << 30))" "SHMEM_SYMMETRIC_SIZE 1000 4096" \
    "SHMEM_SYMMETRIC_HEAP_SIZE 5000 8192"; do
    read -r var val bytes <<<"$spec"
    for n in 1 4; do
        t "$var=$val on $n PEs: a heap of $bytes bytes"
        srun "$var=$val" -- $RUN -np $n $V/heapsize $bytes
        rc_is 0
        pes_passed $n heapsize
    done
done

# Bad values: one line, status 1, from the launcher before any PE starts, or
# from the program on its own.
bad_env() { # VAR=value expected-text
    t "$1 (launcher)"
    srun "$1" -- $RUN -np 4 $V/calls $heap local
    rc_is 1
    err_is "hsrts-shmemrun: $2"
    out_is ""
    t "$1 (a program on its own)"
    srun "$1" -- $V/calls $heap local
    rc_is 1
    err_is "calls: shmem_init: $2"
}
bad_env SHMEM_SYMMETRIC_HEAP_SIZE=banana \
    "SHMEM_SYMMETRIC_HEAP_SIZE=banana: not a size (a whole number of bytes with an optional k, M or G suffix)"
bad_env SHMEM_SYMMETRIC_SIZE=-5M \
    "SHMEM_SYMMETRIC_SIZE=-5M: not a size (a whole number of bytes with an optional k, M or G suffix)"
bad_env SHMEM_SYMMETRIC_HEAP_SIZE=0 \
    "SHMEM_SYMMETRIC_HEAP_SIZE=0: the symmetric heap needs at least 1 byte"
bad_env SHMEM_SYMMETRIC_HEAP_SIZE=4096G \
    "SHMEM_SYMMETRIC_HEAP_SIZE=4096G: larger than the largest symmetric heap, 1024G"
bad_env SHMEM_DEBUG=yes "SHMEM_DEBUG=yes: want 0 (off) or 1 (check every call's arguments)"
bad_env HSRTS_SHMEM_BASE=0x1234 "HSRTS_SHMEM_BASE=0x1234: not a non-zero multiple of 1 MiB"

t "the two size variables disagree"
srun SHMEM_SYMMETRIC_HEAP_SIZE=1M SHMEM_SYMMETRIC_SIZE=2M -- $RUN -np 2 $V/calls $heap local
rc_is 1
err_is "hsrts-shmemrun: SHMEM_SYMMETRIC_HEAP_SIZE=1M and SHMEM_SYMMETRIC_SIZE=2M disagree; set one of them"

t "PEs with different heap sizes"
srun SHMEM_SYMMETRIC_HEAP_SIZE=1M -- $RUN -np 3 sh -c \
    '[ "$HSRTS_SHMEM_PE" = 2 ] && export SHMEM_SYMMETRIC_HEAP_SIZE=2M; exec "$@"' sh $V/heapsize $((1 << 20))
rc_is 1
err_is "heapsize: shmem_init: the PEs' settings differ: PE 0 has a heap of 1048576 bytes at 0x400000000000, PE 2 of 2097152 bytes at 0x400000000000 (SHMEM_SYMMETRIC_HEAP_SIZE, HSRTS_SHMEM_BASE and SHMEM_DEBUG must be the same everywhere)"

t "HSRTS_SHMEM_BASE moves the heap"
srun SHMEM_SYMMETRIC_HEAP_SIZE=4M HSRTS_SHMEM_BASE=0x500000000000 -- $RUN -np 2 $V/calls $heap local
rc_is 0
pes_passed 2 calls

# ---- the debug mode: PEs passing different arguments ------------------------------

mismatch() { # case n expected-calls
    t "SHMEM_DEBUG=1: $1 differs on $2 PEs"
    srun SHMEM_DEBUG=1 -- $RUN -np $2 $V/mismatch $1
    rc_is 1
    err_is "mismatch: $3"
    out_has "PE 0: reached the call"
    case $OUT in *"passed the call"*) bad "a PE went on after the mismatch: $OUT" ;; *) ok ;; esac
}
what="the PEs made different calls (SHMEM_DEBUG=1 checks every PE passes the same arguments)"
mismatch size 4 "shmem_malloc: $what: PEs 0-2: shmem_malloc(100); PE 3: shmem_malloc(200)"
mismatch size 2 "shmem_malloc: $what: PE 0: shmem_malloc(100); PE 1: shmem_malloc(200)"
mismatch align 3 "shmem_align: $what: PEs 0-1: shmem_align(64, 100); PE 2: shmem_align(128, 100)"
mismatch realloc 4 "shmem_realloc: $what: PEs 0-2: shmem_realloc(0x400000000000, 100); PE 3: shmem_realloc(0x400000000000, 300)"
mismatch free 8 "shmem_free: $what: PEs 0-6: shmem_free(0x400000000000); PE 7: shmem_free(0x400000000040)"
mismatch call 4 "shmem_free: $what: PE 0: shmem_free(0x400000000000); PEs 1-3: shmem_malloc(64)"
mismatch barrier 2 "shmem_malloc: $what: PE 0: shmem_malloc(64); PE 1: shmem_barrier_all()"

t "SHMEM_DEBUG=1: every PE frees its own malloc(3) block"
srun SHMEM_DEBUG=1 -- $RUN -np 2 $V/mismatch private
rc_is 1
err_has "mismatch: shmem_free: $what: PE 0: shmem_free(0x"
err_has "; PE 1: shmem_free(0x"
err_lines_is 1

t "SHMEM_DEBUG=0: matching calls pass in the debug way"
srun SHMEM_DEBUG=0 -- $RUN -np 4 $D/osh_alloc
rc_is 0
pes_passed 4 osh_alloc

# ---- the launcher when a PE dies ------------------------------------------------

die() { # how pe n status expected-stderr (empty: none)
    t "PE $2 of $3: $1"
    srun -- $RUN -np $3 $V/die $1 $2
    rc_is $4
    if [ -n "$5" ]; then
        err_has "$5"
        err_lines_is 1
    else
        err_is ""
    fi
    case $OUT in *"should not get here"*) bad "a PE went past the barrier: $OUT" ;; *) ok ;; esac
}
die segv 2 4 139 "hsrts-shmemrun: PE 2 (pid "
die segv 2 4 139 ") was killed by signal 11 (Segmentation fault); stopping the other 3 PEs"
die abort 0 2 134 ") was killed by signal 6 (Aborted); stopping the other 1 PE"
die exit3 3 4 3 ") exited with status 3; stopping the other 3 PEs"
die exit3 0 1 3 "hsrts-shmemrun: PE 0 (pid "
die quick_exit0 1 8 1 ") exited with status 0 without calling shmem_finalize; stopping the other 7 PEs"
die global7 1 4 7 ""
die busy7 0 4 7 ""
die noinit 3 4 1 "die: shmem: PE 3 exited without calling shmem_finalize, so no barrier can complete; stopping the job"

# ---- refused calls: one line and status 1 ----------------------------------------

for c in $($V/misuse list); do
    t "$c before shmem_init"
    srun -- $V/misuse before $c
    rc_is 1
    err_is "misuse: $c: called before shmem_init"
    t "$c after shmem_finalize"
    srun -- $V/misuse after $c
    rc_is 1
    err_is "misuse: $c: called after shmem_finalize"
done

misuse() { # case expected-stderr
    t "misuse: $1"
    srun -- $V/misuse $1
    rc_is 1
    err_is "misuse: $2"
    t "misuse: $1 on 4 PEs"
    srun -- $RUN -np 4 $V/misuse $1
    rc_is 1
    err_has "misuse: ${2%%:*}: "
}
misuse pe_range "shmem_long_p: PE 1 does not exist (the job has PEs 0 to 0)"
misuse pe_negative "shmem_long_get: PE -1 does not exist (the job has PEs 0 to 0)"
misuse past_end "shmem_putmem: dest 0x400000000000 + 9223372036854775807 bytes runs past the end of the symmetric heap (0x400010000000)"
misuse init_twice "shmem_init: called twice (the job is already running)"
misuse start_pes_count "start_pes: asked for 1000 PEs, but the job has 1 (pass 0: the launcher decides)"
misuse finalize_twice "shmem_finalize: called after shmem_finalize"
for c in not_symmetric get_private; do
    t "misuse: $c"
    srun -- $V/misuse $c
    rc_is 1
    err_has "is not in the symmetric heap [0x400000000000, 0x400010000000); only its blocks are symmetric (static and global variables are not)"
    err_lines_is 1
done

t "HSRTS_SHMEM_PE without the launcher's other variables"
srun HSRTS_SHMEM_PE=0 -- $V/calls $heap local
rc_is 1
err_is "calls: shmem_init: HSRTS_SHMEM_FD, HSRTS_SHMEM_PE and HSRTS_SHMEM_NPES are set together, by hsrts-shmemrun (only HSRTS_SHMEM_PE is set)"
t "HSRTS_SHMEM_FD naming no launcher's memory"
srun HSRTS_SHMEM_FD=1 HSRTS_SHMEM_PE=0 HSRTS_SHMEM_NPES=2 -- $V/calls $heap local
rc_is 1
err_is "calls: shmem_init: HSRTS_SHMEM_FD=1 is not the launcher's memory (start the PEs with hsrts-shmemrun)"

# ---- the launcher's own input -------------------------------------------------------

launcher_refuses() { # status expected-stderr args...
    local st=$1 msg=$2
    shift 2
    t "hsrts-shmemrun $*"
    srun -- $RUN "$@"
    rc_is $st
    err_is "hsrts-shmemrun: $msg"
}
launcher_refuses 1 "say how many PEs with -np <n> (try hsrts-shmemrun --help)" $V/calls
launcher_refuses 1 "-np 0: the number of PEs must be from 1 to 4096" -np 0 $V/calls
launcher_refuses 1 "-n abc: the number of PEs must be from 1 to 4096" -n abc $V/calls
launcher_refuses 1 "-np 5000: the number of PEs must be from 1 to 4096" -np 5000 $V/calls
launcher_refuses 1 "-np (missing): the number of PEs must be from 1 to 4096" -np
launcher_refuses 1 "no program to run (try hsrts-shmemrun --help)" -np 2
launcher_refuses 1 "unknown option '-x' (try hsrts-shmemrun --help)" -x -np 2 $V/calls
launcher_refuses 127 "no/such/prog: no such program, or it is not executable" -np 2 no/such/prog
launcher_refuses 127 "hsrts-no-such-prog: no such program, or it is not executable" -np 2 hsrts-no-such-prog
t "hsrts-shmemrun --help"
srun -- $RUN --help
rc_is 0
out_has "Usage: hsrts-shmemrun [--bind-to core|none] -np <n> <program> [args...]"
t "a program that is not an OpenSHMEM program runs n times"
srun -- $RUN -np 3 sh -c 'echo "PE $HSRTS_SHMEM_PE of $HSRTS_SHMEM_NPES"'
rc_is 0
OUT=$(sort <<<"$OUT")
out_is "$(printf 'PE %s of 3\n' 0 1 2)"
finish t_shmem
