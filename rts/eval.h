/*
 * Evaluation's internal interface: the frames rts_eval pushes.
 */
#ifndef RTS_EVAL_H
#define RTS_EVAL_H

#include "Rts.h"

/*
 * A selector frame sits above a selector thunk's update frame while its
 * selectee is evaluated: when the selectee's value comes back, field
 * `field` of it is the selector's value (Note [The evaluation loop] in
 * eval.c). A RET_SMALL frame with one non-pointer slot.
 */
typedef struct {
    const StgInfoTable *info;
    StgWord field;
} EvalSelFrame;

extern const StgInfoTable eval_sel_frame_info;

/* Start-up, after sm_init: what the update path needs to know of the storage manager. */
void eval_init(void);

/*
 * Frames the evaluator finds again by position (the top of the stack),
 * never by address, so the runtime may move them (Note [Moving frames] in
 * threads.h).
 */
RTS_INLINE bool eval_frame_is_movable(const StgInfoTable *info)
{
    return info == &stg_UPDATE_FRAME_info || info == &eval_sel_frame_info;
}

#endif /* RTS_EVAL_H */
