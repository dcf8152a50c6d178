/*
 * Evaluation and application: rts_eval, rts_apply, rts_mk_ap.
 *
 * Note [The evaluation protocol]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * To evaluate a thunk t: push an update frame for t, copy t's pointer free
 * variables into a root frame above it (pushing may collect: t is not
 * blackholed yet, so it survives whole), blackhole t by storing the
 * thread's owner token in its slot (from now on the collector may drop its
 * free variables), run the entry code with the rooted copies, pop the root
 * frame, make sure the result is a value (a thunk returning a thunk is a
 * tail call: it is evaluated with our update frame on top, so the two
 * update frames are adjacent and the collector may squeeze them), then pop
 * the update frame and overwrite its updatee with an indirection. The frame is found again as the
 * top of the stack, never by address (Note [Moving frames] in threads.h), and its updatee may have
 * been replaced by squeezing (Note [Squeezing] in sm/scav.c), in which case the updatee is already
 * an indirection.
 *
 * A thunk whose slot holds our own token is one we are evaluating: entering
 * it again can never finish, which is GHC's <<loop>>. In the vanilla way a
 * thunk owned by another thread can only exist if that thread gave up the
 * capability mid-evaluation; we wait for it by giving the capability up too.
 */
#include <sched.h>
#include <string.h>

#include "Rts.h"
#include "capability.h"
#include "messages.h"
#include "sm/mblock.h"
#include "sm/statics.h"
#include "threads.h"

RTS_INLINE bool is_value_type(uint32_t type)
{
    switch (type) {
    case THUNK:
    case THUNK_STATIC:
    case THUNK_SELECTOR:
    case AP:
    case IND:
    case IND_STATIC:
    case BLACKHOLE:
        return false;
    default:
        return true;
    }
}

static RTS_NORETURN void report_loop(void)
{
    msg_fatal(1, "<<loop>>");
}

/*
 * p is under evaluation by `owner`: ours means <<loop>>; another thread's
 * means waiting for it, giving up the capability it needs to finish. p
 * lives in a root frame meanwhile (another thread may collect); returns it.
 */
static StgClosure *blackhole_wait(Capability **capp, StgClosure *p, StgWord owner)
{
    Capability *cap = *capp;
    if (owner == HS_REGS(cap)->owner)
        report_loop();
    cap->scratch[0] = p;
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = cap->scratch[0];
    cap->scratch[0] = NULL;
    rts_unlock(cap);
    sched_yield();
    cap = rts_lock();
    p = r[0];
    rts_pop_roots(cap, r);
    *capp = cap;
    return p;
}

/* Read a closure's update slot (THUNK, AP, THUNK_SELECTOR, THUNK_STATIC share its place). */
RTS_INLINE StgWord *slot_of(StgClosure *q)
{
    return &((StgThunk *)q)->slot;
}

/*
 * Push a root frame holding copies of the n pointer fields at `fields`
 * (inside *q, which is kept alive and updated across the push). NULL when
 * n is 0.
 */
static StgClosure **copy_free_vars(Capability *cap, StgClosure **q, StgClosure **fields, StgWord n)
{
    if (n == 0)
        return NULL;
    StgWord offset = (StgWord)(fields - (StgClosure **)UNTAG(*q));
    cap->scratch[0] = *q;
    StgClosure **fv = rts_push_roots(cap, n);
    *q = cap->scratch[0];
    cap->scratch[0] = NULL;
    memcpy(fv, (StgClosure **)UNTAG(*q) + offset, n * sizeof(StgClosure *));
    return fv;
}

static StgClosure *eval_ap(Capability *cap, StgClosure *q);
static StgClosure *eval_selector(Capability *cap, StgClosure *q);

/* Evaluate the thunk q (slot 0). See Note [The evaluation protocol]. */
static StgClosure *eval_thunk(Capability *cap, StgClosure *q)
{
    StgUpdateFrame *uf = (StgUpdateFrame *)threads_stack_push(cap, SIZEOF_W(StgUpdateFrame), &q);
    uf->info = &stg_UPDATE_FRAME_info;
    uf->updatee = q;
    const StgInfoTable *info = q->info;
    StgClosure *v;
    switch (info->type) {
    case THUNK: {
        StgClosure **fv = copy_free_vars(cap, &q, ((StgThunk *)q)->payload, info->ptrs);
        *slot_of(q) = HS_REGS(cap)->owner;
        v = info->entry.thunk(cap, q, fv);
        if (fv)
            rts_pop_roots(cap, fv);
        break;
    }
    case THUNK_STATIC:
        statics_new_caf((StgCAF *)q);
        *slot_of(q) = HS_REGS(cap)->owner;
        v = info->entry.thunk(cap, q, NULL);
        break;
    case AP:
        v = eval_ap(cap, q);
        break;
    case THUNK_SELECTOR:
        v = eval_selector(cap, q);
        break;
    default:
        msg_barf("eval_thunk: closure type %u", (unsigned)info->type);
    }
    if (v == NULL)
        msg_fatal(EXIT_INTERNAL_ERROR, "rts_eval: the entry code of %s returned NULL",
                  info->name ? info->name : "a thunk");
    if (GET_TAG(v) == 0 && !is_value_type(UNTAG(v)->info->type))
        v = rts_eval(cap, v); /* a tail call: our update frame stays below */

    StgStack *s = cap->r.stack;
    uf = (StgUpdateFrame *)s->sp;
    if (uf->info != &stg_UPDATE_FRAME_info)
        msg_fatal(EXIT_INTERNAL_ERROR,
                  "rts_eval: the entry code of %s did not pop every frame it pushed",
                  info->name ? info->name : "a thunk");
    StgClosure *updatee = uf->updatee;
    threads_stack_pop(cap, SIZEOF_W(StgUpdateFrame));
    uint32_t t = updatee->info->type;
    if (t != IND && t != IND_STATIC) /* squeezed: already an indirection */
        rts_update_thunk(cap, updatee, v);
    return v;
}

StgClosure *rts_eval(Capability *cap, StgClosure *p)
{
    for (;;) {
        if (p == NULL)
            msg_fatal(EXIT_INTERNAL_ERROR, "rts_eval: NULL is not a closure");
        if (GET_TAG(p) != 0)
            return p;
        StgClosure *q = p;
        const StgInfoTable *info = __atomic_load_n(&q->info, __ATOMIC_ACQUIRE);
        switch (info->type) {
        case IND:
            p = ((StgInd *)q)->indirectee;
            continue;
        case IND_STATIC:
            p = ((StgCAF *)q)->indirectee;
            continue;
        case BLACKHOLE:
            p = blackhole_wait(&cap, p, ((StgBlackhole *)q)->owner);
            continue;
        case THUNK:
        case THUNK_STATIC:
        case AP:
        case THUNK_SELECTOR:
            if (*slot_of(q) != 0) {
                p = blackhole_wait(&cap, p, *slot_of(q));
                continue;
            }
            return eval_thunk(cap, q);
        default:
            return p;
        }
    }
}

/* --- application ----------------------------------------------------------------- */

static StgClosure *mk_pap(Capability *cap, StgClosure **fun, StgWord arity, StgWord n_held,
                          StgClosure **held, StgWord n, StgClosure **args)
{
    StgPAP *pap = (StgPAP *)rts_alloc(cap, SIZEOF_W(StgPAP) + n_held + n);
    pap->info = &stg_PAP_info;
    pap->arity = (StgHalfWord)(arity - n_held - n);
    pap->n_args = (StgHalfWord)(n_held + n);
    pap->fun = *fun;
    for (StgWord i = 0; i < n_held; i++)
        pap->payload[i] = held[i];
    for (StgWord i = 0; i < n; i++)
        pap->payload[n_held + i] = args[i];
    return (StgClosure *)pap;
}

StgClosure *rts_apply(Capability *cap, StgClosure *f, StgWord n, StgClosure **args)
{
    /* r[0]: the function being applied; r[1..]: a PAP's arguments with ours. */
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = f;
    while (n > 0) {
        r[0] = rts_eval(cap, r[0]);
        StgClosure *fn = UNTAG(r[0]);
        const StgInfoTable *info = fn->info;
        if (info->type == FUN || info->type == FUN_STATIC) {
            StgWord arity = info->tag;
            if (arity == 0)
                msg_fatal(EXIT_INTERNAL_ERROR, "rts_apply: %s has arity 0",
                          info->name ? info->name : "a function");
            if (n < arity) {
                StgClosure *pap = mk_pap(cap, &r[0], arity, 0, NULL, n, args);
                rts_pop_roots(cap, r);
                return pap;
            }
            StgClosure **fv = copy_free_vars(cap, &r[0], UNTAG(r[0])->payload, info->ptrs);
            fn = UNTAG(r[0]);
            StgClosure *res = fn->info->entry.fun(cap, fn, fv, args);
            if (fv)
                rts_pop_roots(cap, fv);
            r[0] = res;
            args += arity;
            n -= arity;
        } else if (info->type == PAP) {
            StgPAP *pap = (StgPAP *)fn;
            StgWord held = pap->n_args, missing = pap->arity;
            if (n < missing) {
                /* Still partial: a bigger PAP (the old one stays rooted in r[0]). */
                StgClosure *p2 = (StgClosure *)rts_alloc(cap, SIZEOF_W(StgPAP) + held + n);
                pap = (StgPAP *)UNTAG(r[0]);
                StgPAP *np = (StgPAP *)p2;
                np->info = &stg_PAP_info;
                np->arity = (StgHalfWord)(missing - n);
                np->n_args = (StgHalfWord)(held + n);
                np->fun = pap->fun;
                memcpy(np->payload, pap->payload, held * sizeof(StgClosure *));
                memcpy(np->payload + held, args, n * sizeof(StgClosure *));
                rts_pop_roots(cap, r);
                return p2;
            }
            /* Saturated: the held arguments and the first `missing` of ours, in a frame. */
            StgClosure **all = rts_push_roots(cap, held + missing + 1);
            pap = (StgPAP *)UNTAG(r[0]);
            all[0] = pap->fun;
            memcpy(&all[1], pap->payload, held * sizeof(StgClosure *));
            memcpy(&all[1 + held], args, missing * sizeof(StgClosure *));
            StgClosure **fv =
                copy_free_vars(cap, &all[0], UNTAG(all[0])->payload, UNTAG(all[0])->info->ptrs);
            StgClosure *fun = UNTAG(all[0]);
            StgClosure *res = fun->info->entry.fun(cap, fun, fv, &all[1]);
            if (fv)
                rts_pop_roots(cap, fv);
            rts_pop_roots(cap, all);
            r[0] = res;
            args += missing;
            n -= missing;
        } else {
            msg_fatal(EXIT_INTERNAL_ERROR, "rts_apply: %s is not a function (closure type %u)",
                      info->name ? info->name : "the closure", (unsigned)info->type);
        }
    }
    StgClosure *res = r[0];
    rts_pop_roots(cap, r);
    return res;
}

StgClosure *rts_mk_ap(Capability *cap, StgClosure *f, StgWord n, StgClosure **args)
{
    cap->scratch[0] = f;
    StgAP *ap = (StgAP *)rts_alloc(cap, SIZEOF_W(StgAP) + n);
    ap->info = &stg_AP_info;
    ap->slot = 0;
    ap->arity = 0;
    ap->n_args = (StgHalfWord)n;
    ap->fun = cap->scratch[0];
    cap->scratch[0] = NULL;
    memcpy(ap->payload, args, n * sizeof(StgClosure *));
    return (StgClosure *)ap;
}

/* An AP: copy fun and args to a frame before blackholing (which drops them). */
static StgClosure *eval_ap(Capability *cap, StgClosure *q)
{
    StgWord n = ((StgAP *)q)->n_args;
    cap->scratch[0] = q;
    StgClosure **r = rts_push_roots(cap, n + 1);
    q = cap->scratch[0];
    cap->scratch[0] = NULL;
    StgAP *ap = (StgAP *)q;
    r[0] = ap->fun;
    memcpy(&r[1], ap->payload, n * sizeof(StgClosure *));
    *slot_of(q) = HS_REGS(cap)->owner;
    StgClosure *v = rts_apply(cap, r[0], n, &r[1]);
    rts_pop_roots(cap, r);
    return v;
}

/* A selector thunk: evaluate the selectee, then the selected field. */
static StgClosure *eval_selector(Capability *cap, StgClosure *q)
{
    StgClosure *selectee = ((StgSelector *)q)->selectee;
    uint32_t field = q->info->tag;
    const char *name = q->info->name;
    *slot_of(q) = HS_REGS(cap)->owner;
    StgClosure *c = UNTAG(rts_eval(cap, selectee));
    const StgInfoTable *ci = c->info;
    if ((ci->type != CONSTR && ci->type != CONSTR_STATIC) || field >= ci->ptrs)
        msg_fatal(EXIT_INTERNAL_ERROR,
                  "rts_eval: selector %s picks field %u of a closure of type %u with %u pointers",
                  name ? name : "(unnamed)", field, (unsigned)ci->type, (unsigned)ci->ptrs);
    return rts_eval(cap, c->payload[field]);
}
