#!/bin/bash
# Misuse of the evaluation API is the program's fault: one line naming the
# call, exit 1, in both ways (rts/README.md, "Exit statuses").
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

for way in v debug; do
    p=build/tests/progs/$way/misuse_eval
    check() { # mode, expected stderr
        t "$1 ($way)"
        run -- $p "$1"
        rc_is 1
        err_is "$2"
    }
    check eval-null "misuse_eval: rts_eval: NULL is not a closure"
    check entry-returns-null "misuse_eval: rts_eval: the entry code of test:returnsNull returned NULL"
    check entry-leaves-a-frame \
        "misuse_eval: rts_eval: the entry code of test:leavesAFrame did not pop every frame it pushed"
    check apply-non-function "misuse_eval: rts_apply: test:Int is not a function (closure type 1)"
    check select-non-constructor \
        "misuse_eval: rts_eval: a selector thunk picks field 0 of test:Int (closure type 1, 0 pointer fields), which is not a constructor with that field"
    check eval-without-capability \
        "misuse_eval: rts_eval: this thread does not hold capability 0"
    check hs-exit-inside-eval \
        "misuse_eval: hs_exit: called from inside an evaluation; entry code that ends the program calls shutdownHaskellAndExit"
    t "resume-without-suspend ($way)"
    run -- $p resume-without-suspend
    rc_is 1
    err_lines_is 1
    err_has "misuse_eval: rts_resume: this thread holds capability 0; it was not suspended"
    t "resume-bad-token ($way)"
    run -- $p resume-bad-token
    rc_is 1
    err_lines_is 1
    err_has "is not the token of this thread's rts_suspend"
    t "resume-twice ($way)"
    run -- $p resume-twice
    rc_is 1
    err_is "misuse_eval: rts_resume: this thread holds capability 0; it was not suspended"
    check yield-without-capability "misuse_eval: rts_yield: this thread does not hold capability 0"
    for kind in array small-array; do
        t "cas-frozen-$kind ($way)"
        run -- $p cas-frozen-$kind
        rc_is 1
        err_lines_is 1
        err_has "is frozen (closure type "
        err_has "thaw it before writing"
    done
    t "update-non-thunk ($way)"
    run -- $p update-non-thunk
    rc_is 1
    err_lines_is 1
    err_has "misuse_eval: rts_update_thunk: "
    err_has " is not a thunk (closure type 1)"
done

finish t_misuse
