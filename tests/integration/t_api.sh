#!/bin/bash
# The public API misused, in both ways (Note [Calls outside hs_init ..
# hs_exit] in rts/startup.h): every call that touches the runtime, made
# before hs_init or after the last hs_exit, ends with one line and exit 1,
# as rts_lock does; bad and double-freed stable pointers and updating a
# non-thunk are the program's mistakes, exit 1 with one line.
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

for way in v debug; do
    P=build/tests/progs/$way/api_misuse
    calls=$($P list)
    [ "$(echo "$calls" | wc -l)" -ge 30 ] && ok || bad "the program lists too few calls"

    for when in before after; do
        t "every call $when the runtime runs is refused ($way)"
        for call in $calls; do
            # setKeepCAFs only sets a flag hs_init keeps, and may come first (GHC).
            [ "$when $call" = "before setKeepCAFs" ] && continue
            run -- $P $when $call
            rc_is 1
            err_is "api_misuse: $call: the runtime is not running (call hs_init first)"
            out_is ""
        done
    done

    t "setKeepCAFs before hs_init is allowed, as in GHC ($way)"
    run -- $P before setKeepCAFs
    rc_is 0
    out_is "setKeepCAFs returned"
    err_is ""

    t "a double-freed stable pointer ($way)"
    run -- $P stable double-free
    rc_is 1
    err_is "api_misuse: hs_free_stable_ptr: stable pointer $OUT was freed already"
    run -- $P stable double-freeStablePtr
    rc_is 1
    err_is "api_misuse: freeStablePtr: stable pointer $OUT was freed already"

    t "dereferencing a freed stable pointer ($way)"
    run -- $P stable deref-freed
    rc_is 1
    err_is "api_misuse: deRefStablePtr: stable pointer $OUT was freed already"

    t "bogus stable pointers ($way)"
    run -- $P stable free-bogus
    rc_is 1
    err_is "api_misuse: hs_free_stable_ptr: $(printf '0x%x' $((OUT + 1000))) is not a stable pointer"
    run -- $P stable deref-null
    rc_is 1
    err_is "api_misuse: deRefStablePtr: 0x0 is not a stable pointer"

    t "freeing NULL does nothing, as in GHC ($way)"
    run -- $P stable free-null
    rc_is 0
    err_is ""
    case $OUT in *"freeing NULL did nothing") ok ;; *) bad "stdout: $OUT" ;; esac

    t "rts_update_thunk on a constructor ($way)"
    run -- $P stable update-non-thunk
    rc_is 1
    err_lines_is 1
    err_has "api_misuse: rts_update_thunk: "
    err_has " is not a thunk (closure type "
done

finish t_api
