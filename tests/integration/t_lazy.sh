#!/bin/bash
# Foundation II's exits, in both ways: <<loop>>, heap overflow with GHC's
# message and 251, a program's own heap hook with the -Mgrace allowance,
# stack overflow with GHC's message and 2, a custom mallocFailHook on an
# injected OS refusal (254), shutdownHaskellAndExit with and without
# statistics.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

for way in v debug; do
    p=build/tests/progs/$way/lazy_exits

    t "<<loop>> ($way)"
    run -- $p loop
    rc_is 1
    err_is "lazy_exits: <<loop>>"

    t "heap overflow under -M ($way)"
    run -- $p heap +RTS -M8m -RTS
    rc_is 251
    err_is "lazy_exits: Heap exhausted;
lazy_exits: Current maximum heap size is 8388608 bytes (8 MB).
lazy_exits: Use \`+RTS -M<size>' to increase it."

    t "statistics follow the heap-overflow message ($way)"
    run -- $p heap +RTS -M8m -s -RTS
    rc_is 251
    err_has "lazy_exits: Heap exhausted;"
    err_has " bytes allocated in the heap"
    case $ERR in "lazy_exits: Heap exhausted;"*) ok ;; *) bad "the message does not come first" ;; esac

    t "a program's own heap hook goes on with -Mgrace more ($way)"
    run -- $p heap-custom +RTS -M8m -Mgrace=2m -RTS
    rc_is 0
    out_is "survived 2 heap overflows"
    err_is "hook: heap overflow 1 at a limit of 8388608 bytes
hook: heap overflow 2 at a limit of 10485760 bytes"

    # GHC reports the size of the stack chunk in use (-kc), not the whole stack.
    t "stack overflow ($way)"
    run -- $p stack +RTS -K1m -RTS
    rc_is 2
    err_is "lazy_exits: Stack space overflow: current size 32768 bytes.
lazy_exits: Use \`+RTS -Ksize -RTS' to increase it."

    t "nested evaluation a million deep with default options ($way)"
    run -- $p deep 1000000
    rc_is 0
    out_is "depth 1000000"

    t "nested evaluation past -K: GHC's message, exit 2, never a signal ($way)"
    run -- $p deep 1000000 +RTS -K1m -kc64k -RTS
    rc_is 2
    err_is "lazy_exits: Stack space overflow: current size 65536 bytes.
lazy_exits: Use \`+RTS -Ksize -RTS' to increase it."

    t "a bigger -K lets it finish ($way)"
    run -- $p deep 200000 +RTS -K512m -RTS
    rc_is 0
    out_is "depth 200000"

    t "a custom mallocFailHook when the OS refuses memory ($way)"
    run HSRTS_FAIL_OS_ALLOC=4 -- $p malloc-custom
    rc_is 254
    err_is "custom malloc hook: 1048576 bytes (block allocator: out of memory)"

    t "shutdownHaskellAndExit prints statistics; a fast exit does not ($way)"
    run -- $p shutdown +RTS -t -RTS
    rc_is 3
    out_is "shutting down"
    err_has "<<ghc: "
    run -- $p shutdown-fast +RTS -t -RTS
    rc_is 3
    err_is ""
done

finish t_lazy
