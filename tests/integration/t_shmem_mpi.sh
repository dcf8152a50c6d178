#!/bin/bash
# The symmetric heap on the MPI backend (libhsrts_mpi, rts/shmem/mpi/): the
# same test programs as t_shmem.sh, linked with mpicc and run by mpirun as
# 1, 2, 4 and 8 ranks on this machine. Skipped, with a note, when configure
# found no Open MPI. Open MPI refuses to run as root unless told it may.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/shmem/lib.sh

if ! grep -q '^HAVE_MPI = yes' mk/config.mk 2>/dev/null; then
    echo "t_shmem_mpi: note: skipped: configure found no Open MPI (make deps installs it)"
    finish t_shmem_mpi
    exit
fi
MPIRUN=$(sed -n 's/^MPIRUN = //p' mk/config.mk)
M=build/tests/shmem/mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Shared memory between ranks of one machine; no network, no warnings about it.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0
TO="timeout 120"
mpi() { # n [VAR=v ...] -- prog args...
    local n=$1 envs=() xs=()
    shift
    while [ "$1" != "--" ]; do
        envs+=("$1")
        xs+=(-x "${1%%=*}")
        shift
    done
    shift
    run -u SHMEM_SYMMETRIC_HEAP_SIZE -u SHMEM_SYMMETRIC_SIZE -u SHMEM_DEBUG -u HSRTS_SHMEM_BASE \
        "${envs[@]}" -- $TO "$MPIRUN" --oversubscribe "${xs[@]}" -np "$n" "$@"
}


heap=$((4 << 20))
for n in 1 2 4 8; do
    t "calls on $n ranks"
    mpi $n SHMEM_SYMMETRIC_HEAP_SIZE=4M -- $M/calls $heap mpi
    rc_is 0
    pes_passed $n calls
done
for n in 2 4; do
    t "calls on $n ranks, SHMEM_DEBUG=1"
    mpi $n SHMEM_SYMMETRIC_HEAP_SIZE=4M SHMEM_DEBUG=1 -- $M/calls $heap mpi
    rc_is 0
    pes_passed $n calls
done
for p in osh_alloc osh_realloc osh_align; do
    for n in 1 3 8; do
        t "$p on $n ranks"
        mpi $n -- $M/$p
        rc_is 0
        pes_passed $n $p
    done
done

for order in hs-first shmem-first; do
    t "with hs_init ($order) on 4 ranks"
    mpi 4 -- $M/with_hs $order
    rc_is 0
    pes_passed 4 with_hs
done

t "SHMEM_SYMMETRIC_SIZE=3M on 4 ranks"
mpi 4 SHMEM_SYMMETRIC_SIZE=3M -- $M/heapsize $((3 << 20))
rc_is 0
pes_passed 4 heapsize

t "SHMEM_SYMMETRIC_HEAP_SIZE=banana"
mpi 2 SHMEM_SYMMETRIC_HEAP_SIZE=banana -- $M/heapsize 1
rc_is 1
err_has "heapsize: shmem_init: SHMEM_SYMMETRIC_HEAP_SIZE=banana: not a size (a whole number of bytes with an optional k, M or G suffix)"
[ "$(grep -c 'not a size' <<<"$ERR")" = 1 ] && ok || bad "the message is not printed once: $ERR"

t "SHMEM_DEBUG=1: sizes differ"
mpi 4 SHMEM_DEBUG=1 -- $M/mismatch size
rc_is 1
err_has "mismatch: shmem_malloc: the PEs made different calls (SHMEM_DEBUG=1 checks every PE passes the same arguments): PEs 0-2: shmem_malloc(100); PE 3: shmem_malloc(200)"
case $OUT in *"passed the call"*) bad "a rank went on after the mismatch: $OUT" ;; *) ok ;; esac

t "SHMEM_DEBUG=1: a barrier against a free"
mpi 2 SHMEM_DEBUG=1 -- $M/mismatch barrier
rc_is 1
err_has "PE 0: shmem_malloc(64); PE 1: shmem_barrier_all()"

t "shmem_global_exit(7) on rank 1 of 4"
mpi 4 -- $M/die global7 1
rc_is 7
case $OUT in *"should not get here"*) bad "a rank went past the barrier: $OUT" ;; *) ok ;; esac

t "a call before shmem_init (a program on its own: one rank)"
run -- $TO $M/misuse before shmem_malloc
rc_is 1
err_is "misuse: shmem_malloc: called before shmem_init"
finish t_shmem_mpi
