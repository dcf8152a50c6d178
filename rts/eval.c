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
 * frame. The entry returns a value, or another thunk whose value is t's
 * value (a tail call, Note [Tail calls]). Once the value is known the
 * update frame is popped and t is overwritten by an indirection to it.
 * Frames are found again as the top of the stack, never by address
 * (Note [Moving frames] in threads.h).
 *
 * A thunk whose slot holds our own token is one we are evaluating: entering
 * it again can never finish, which is GHC's <<loop>>. In the vanilla way a
 * thunk owned by another thread can only exist if that thread gave up the
 * capability mid-evaluation; we wait for it by giving the capability up too.
 *
 * Note [The evaluation loop]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * One call of eval_loop evaluates one closure to a value without calling
 * itself: it keeps what remains to be done as frames on the thread's heap
 * stack (`pending` counts the frames this call pushed, all of them on top
 * of the stack whenever control is in the loop) and a closure to reduce:
 *
 *   - a value goes back to the topmost pending frame: an update frame
 *     updates its thunk and passes the value on; a selector frame picks
 *     its field out of the value, which becomes the closure to reduce;
 *   - a THUNK, AP or CAF gets an update frame and its entry is called; the
 *     entry's result is the next closure to reduce;
 *   - a THUNK_SELECTOR gets an update frame and a selector frame above it,
 *     and its selectee is the next closure to reduce, so a chain of
 *     selectors (fst (fst (fst ...))) costs heap stack, bounded by -K, and
 *     no C stack.
 *
 * The only C recursion left is the entry code's own: an entry that calls
 * rts_eval and then computes with the result. That is a nested evaluation
 * (its continuation is C code), which runs on the evaluation stack and is
 * bounded by -K (Note [Evaluation stacks] in cstack.h).
 *
 * Note [Tail calls]
 * ~~~~~~~~~~~~~~~~~~
 * When the closure to reduce is an unevaluated thunk u and the topmost
 * pending frame is an update frame for t, then t's value *is* u's value:
 * nothing else is left to do for t. That happens exactly when t's entry
 * returned u (a tail call) or when the field a selector picked is a thunk.
 * The loop then updates t with an indirection to u at once, pops t's frame
 * and evaluates u in its place. A chain of 10^7 tail calls runs in one
 * update frame and one C frame; t's free variables die at once; anyone who
 * enters t later follows the indirection to u (and waits on u, or reports
 * <<loop>>, as u's state says).
 *
 * The rule needs no guessing: the loop pushed the frame itself and knows
 * no C code waits between it and u. GHC finds tail calls instead by
 * squeezing adjacent update frames at GC time; in hsrts two adjacent
 * update frames can also mean an entry that called rts_eval and will
 * compute with the result (its continuation lives on the C stack, out of
 * the collector's sight), so squeezing them would give the outer thunk the
 * inner one's value. hsrts does not squeeze; -Z is accepted and has
 * nothing to turn off.
 */
#include "eval.h"

#include <pthread.h>
#include <time.h>
#include <string.h>

#include "capability.h"
#include "cstack.h"
#include "messages.h"
#include "sm/layout.h"
#include "sm/mblock.h"
#include "sm/mut_list.h"
#include "sm/storage.h"
#include "sm/statics.h"
#include "threads.h"
#include "trace/debug_trace.h"

const StgInfoTable eval_sel_frame_info = {
    .type = RET_SMALL,
    .ptrs = 1, /* one slot: the field index, not a pointer */
    .bitmap = {.small = 0},
    .name = "SELECTOR_FRAME",
};

static const char *name_of(const StgInfoTable *info, const char *otherwise)
{
    return info->name ? info->name : otherwise;
}

static RTS_NORETURN void report_loop(void)
{
    msg_fatal(1, "<<loop>>");
}

/*
 * p is under evaluation by `owner`: ours means <<loop>>; another thread's
 * means waiting for it, giving up the capability it needs to finish. p
 * lives in a root frame meanwhile (another thread may collect); returns it.
 * The thread gets the same capability back.
 */
/* A closure's update slot (THUNK, AP, THUNK_SELECTOR, THUNK_STATIC share its place). */
RTS_INLINE StgWord *slot_of(StgClosure *q)
{
    return &((StgThunk *)q)->slot;
}

/*
 * Look at the slot without claiming it: another thread may be claiming it
 * by CAS right now (claim), so the look is an atomic load (a plain load on
 * every machine we build for).
 */
/*
 * Note [The owner slot is shared]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A thunk's slot, a BLACKHOLE's owner and an IND's indirectee are the same
 * word. The thread that updates a thunk overwrites its owner token with the
 * value while other threads may be reading that word to learn who owns the
 * thunk, so every access to it outside a collection is atomic (relaxed
 * loads and stores are plain moves on the machines we run on). A reader
 * that saw the info pointer of a thunk or BLACKHOLE may therefore read the
 * value instead of an owner: the value is a pointer (even), never our own
 * odd token, so it only sends the reader to blackhole_wait, whose
 * still_blackholed looks again at the info pointer, which the updater
 * publishes with release order after the value.
 */
RTS_INLINE StgWord slot_peek(StgClosure *q)
{
    return __atomic_load_n(slot_of(q), __ATOMIC_RELAXED);
}

/*
 * Note [Waiting for a blackhole]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A thread that needs a thunk another thread is evaluating gives its
 * capability up (the other thread may need it, in the vanilla way it
 * surely does) and sleeps until some thunk is updated: every update
 * that sees a waiter counted (Note [One word for the slow update]) bumps
 * bh_generation and wakes all sleepers, who take their capability back and
 * look again. The update reads the count without a fence, and the loop's
 * own updates read it just before they store (the update path is hot), so
 * a waiter that registered just after an update's read could miss that
 * wake-up; it sleeps at most BH_RECHECK_NS before looking again anyway. No
 * thread spins: a sleeper runs once per update or per recheck interval.
 */
#define BH_RECHECK_NS (5 * 1000 * 1000)
static pthread_mutex_t bh_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bh_cond = PTHREAD_COND_INITIALIZER;
static uint64_t bh_generation; /* guarded by bh_lock */

/*
 * Note [One word for the slow update]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every update the loop makes asks three process-wide questions: must the
 * slop after the IND be zeroed (sm_zero_slop), and is any thread waiting
 * for a blackhole (Note [Waiting for a blackhole])? They live in one word,
 * read once per update with the capability's barrier word: bit 0 is
 * sm_zero_slop (set by eval_init at start-up, which runs after sm_init),
 * and the waiters are counted in steps of EVAL_SLOW_WAITER. Zero (the
 * common case) means the plain update with nothing after it.
 */
#define EVAL_SLOW_ZERO_SLOP 1u
#define EVAL_SLOW_WAITER    2u
static uint32_t eval_slow; /* atomic */

void eval_init(void)
{
    if (sm_zero_slop)
        __atomic_fetch_or(&eval_slow, EVAL_SLOW_ZERO_SLOP, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_and(&eval_slow, ~EVAL_SLOW_ZERO_SLOP, __ATOMIC_SEQ_CST);
}

static void bh_wake_all(void)
{
    pthread_mutex_lock(&bh_lock);
    bh_generation++;
    pthread_cond_broadcast(&bh_cond);
    pthread_mutex_unlock(&bh_lock);
}

/* After a thunk update on the slow side: wake the threads waiting for blackholes, if any. */
RTS_INLINE void bh_updated(void)
{
    if (RTS_UNLIKELY(__atomic_load_n(&eval_slow, __ATOMIC_RELAXED) >= EVAL_SLOW_WAITER))
        bh_wake_all();
}

/* Is p (untagged) still under evaluation by another thread? */
static bool still_blackholed(Capability *cap, StgClosure *p)
{
    const StgInfoTable *info = __atomic_load_n(&p->info, __ATOMIC_ACQUIRE);
    StgWord owner;
    switch (info->type) {
    case BLACKHOLE:
        owner = __atomic_load_n(&((StgBlackhole *)p)->owner, __ATOMIC_RELAXED);
        break;
    case THUNK:
    case THUNK_STATIC:
    case AP:
    case THUNK_SELECTOR:
        owner = __atomic_load_n(slot_of(p), __ATOMIC_ACQUIRE);
        break;
    default:
        return false;
    }
    return owner != 0 && owner != HS_REGS(cap)->owner;
}

/*
 * p is under evaluation by `owner`: ours means <<loop>>; another thread's
 * means waiting for it (Note [Waiting for a blackhole]). p lives in a root
 * frame meanwhile (another thread may collect); returns it. The thread gets
 * the same capability back.
 */
static StgClosure *blackhole_wait(Capability *cap, StgClosure *p, StgWord owner)
{
    if (owner == HS_REGS(cap)->owner)
        report_loop();
    cap->scratch[0] = p;
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = cap->scratch[0];
    cap->scratch[0] = NULL;
    __atomic_fetch_add(&eval_slow, EVAL_SLOW_WAITER, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&bh_lock);
    uint64_t seen = bh_generation;
    pthread_mutex_unlock(&bh_lock);
    if (still_blackholed(cap, UNTAG(r[0]))) {
        void *token = rts_suspend(cap);
        pthread_mutex_lock(&bh_lock);
        if (bh_generation == seen) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += BH_RECHECK_NS;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&bh_cond, &bh_lock, &ts);
        }
        pthread_mutex_unlock(&bh_lock);
        Capability *again = rts_resume(token);
        ASSERT(again == cap); /* the capability rule (include/rts/Safepoints.h) */
        (void)again;
    }
    __atomic_fetch_sub(&eval_slow, EVAL_SLOW_WAITER, __ATOMIC_SEQ_CST);
    p = r[0];
    rts_pop_roots(cap, r);
    return p;
}

/*
 * Blackhole q for this thread. In the threaded way two threads may enter
 * the same thunk at once: the slot is claimed by compare-and-swap, and the
 * loser waits for the winner. false: someone else claimed it.
 */
RTS_INLINE bool claim(Capability *cap, StgClosure *q)
{
#ifdef THREADED_RTS
    /*
     * With one capability no other thread runs while this one is between
     * its look at the slot and this store, so a plain store is enough (a
     * capability is only added with the world stopped, at a safepoint).
     */
    if (n_capabilities > 1) {
        StgWord expected = 0;
        return __atomic_compare_exchange_n(slot_of(q), &expected, HS_REGS(cap)->owner, false,
                                           __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    }
    *slot_of(q) = HS_REGS(cap)->owner;
    return true;
#else
    *slot_of(q) = HS_REGS(cap)->owner;
    return true;
#endif
}

/* What an enter_* returns when claim lost: the loop looks at the thunk again. */
static StgClosure eval_retry_marker;
#define EVAL_RETRY (&eval_retry_marker)

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

static StgClosure *apply(Capability *cap, StgClosure *f, StgWord n, StgClosure **args);

/* An AP whose update frame is pushed: copy fun and args to a frame, blackhole, apply. */
static StgClosure *enter_ap(Capability *cap, StgClosure *q)
{
    StgWord n = ((StgAP *)q)->n_args;
    cap->scratch[0] = q;
    StgClosure **r = rts_push_roots(cap, n + 1);
    q = cap->scratch[0];
    cap->scratch[0] = NULL;
    StgAP *ap = (StgAP *)q;
    r[0] = ap->fun;
    memcpy(&r[1], ap->payload, n * sizeof(StgClosure *));
    if (!claim(cap, q)) {
        rts_pop_roots(cap, r);
        return EVAL_RETRY;
    }
    StgClosure *v = apply(cap, r[0], n, &r[1]);
    rts_pop_roots(cap, r);
    return v;
}

static RTS_NORETURN void entry_left_frames(const StgInfoTable *info)
{
    msg_fatal(1, "rts_eval: the entry code of %s did not pop every frame it pushed",
              name_of(info, "a thunk"));
}

static RTS_NORETURN void entry_returned_null(const StgInfoTable *info)
{
    msg_fatal(1, "rts_eval: the entry code of %s returned NULL", name_of(info, "a thunk"));
}

/*
 * threads_stack_push for the fast paths, with *qp kept alive across a
 * collection. Only the slow side takes an address, so that on the fast
 * side the closure stays in a register rather than in memory.
 */
RTS_INLINE StgPtr eval_push(Capability *cap, StgWord words, StgClosure **qp)
{
    StgStack *s = cap->r.stack;
    StgPtr sp = s->sp - words;
    if (RTS_LIKELY(sp >= s->stack)) {
        s->sp = sp;
        return sp;
    }
    StgClosure *q = *qp;
    sp = threads_stack_push_slow(cap, words, &q);
    *qp = q;
    return sp;
}

/*
 * Start evaluating the THUNK q (slot 0): push its update frame and, in the
 * same push, a root frame with copies of its pointer free variables;
 * blackhole it; run its entry. Returns what the entry returned, with the
 * update frame on top of the stack.
 */
/* n words from `from` to `to`; n is small (a thunk's free variables). */
RTS_INLINE void copy_words(StgClosure **to, StgClosure **from, StgWord n)
{
    switch (n) {
    case 2:
        to[1] = from[1];
        /* fall through */
    case 1:
        to[0] = from[0];
        break;
    default:
        for (StgWord i = 0; i < n; i++)
            to[i] = from[i];
    }
}

/*
 * The checks after a thunk's entry returned v: it must leave the stack as
 * it found it. With free variables (fv_words > 0) our root frame is on top
 * at sp, where we pushed it (root frames never move), and our update frame,
 * pushed with it, right under it. Without, our update frame is on top,
 * though it may have moved to a newer chunk (Note [Moving frames] in
 * threads.h). Returns the update frame's address, which the caller makes
 * the top of the stack (the free variables are not popped here).
 */
RTS_INLINE StgPtr after_entry(Capability *cap, StgPtr sp, StgWord fv_words,
                              const StgInfoTable *info, StgClosure *v)
{
    StgPtr now = cap->r.stack->sp;
    if (fv_words) {
        if (RTS_UNLIKELY(now != sp))
            entry_left_frames(info);
        now = sp + fv_words;
    } else if (RTS_UNLIKELY(((StgClosure *)now)->info != &stg_UPDATE_FRAME_info)) {
        entry_left_frames(info);
    }
    if (RTS_UNLIKELY(GET_TAG(v) == 0) && RTS_UNLIKELY(v == NULL))
        entry_returned_null(info);
    return now;
}

/*
 * Start evaluating the THUNK q (slot 0): push its update frame and, in the
 * same push, a root frame with copies of its pointer free variables;
 * blackhole it; run its entry. Returns what the entry returned; *top is
 * its update frame, which is the top of the stack unless the entry
 * returned a tagged value (then the caller pops it at once).
 */
RTS_INLINE StgClosure *enter_plain_thunk_at(Capability *cap, StgClosure **qp,
                                            const StgInfoTable *info, StgPtr *top)
{
    StgClosure *q = *qp;
    StgWord n = info->ptrs;
    StgWord fv_words = n ? SIZEOF_W(StgRetDyn) + n : 0;
    StgPtr sp = eval_push(cap, fv_words + SIZEOF_W(StgUpdateFrame), &q);
    StgUpdateFrame *uf = (StgUpdateFrame *)(sp + fv_words);
    uf->info = &stg_UPDATE_FRAME_info;
    uf->updatee = q;
    StgClosure **fv = NULL;
    if (n) {
        StgRetDyn *f = (StgRetDyn *)sp;
        f->info = &stg_RET_DYN_info;
        f->size = n;
        copy_words(f->slots, ((StgThunk *)q)->payload, n);
        fv = f->slots;
    }
    if (RTS_UNLIKELY(!claim(cap, q))) {
        *qp = q;
        threads_stack_pop(cap, fv_words + SIZEOF_W(StgUpdateFrame));
        return EVAL_RETRY;
    }
    StgClosure *v = info->entry.thunk(cap, q, fv);
    StgPtr now = after_entry(cap, sp, fv_words, info, v);
    if (RTS_UNLIKELY(GET_TAG(v) == 0))
        cap->r.stack->sp = now;
    *top = now;
    return v;
}

/* As enter_plain_thunk_at, with the update frame always left on top. */
RTS_INLINE StgClosure *enter_plain_thunk(Capability *cap, StgClosure **qp, const StgInfoTable *info)
{
    StgPtr top = NULL; /* set unless EVAL_RETRY (-Og cannot see it) */
    StgClosure *v = enter_plain_thunk_at(cap, qp, info, &top);
    if (v != EVAL_RETRY)
        cap->r.stack->sp = top;
    return v;
}

/*
 * Pop the update frame at `top`, the top of the current stack chunk, and
 * update its thunk with v.
 */
RTS_INLINE StgPtr eval_pop_update_at(Capability *cap, StgPtr top, StgClosure *v);

/*
 * Start evaluating a CAF or an AP (slot 0): push the update frame, run the
 * code. Returns what the code returned, with the update frame on top.
 */
static StgClosure *enter_thunk(Capability *cap, StgClosure **qp, const StgInfoTable *info)
{
    StgClosure *q = *qp;
    StgUpdateFrame *uf = (StgUpdateFrame *)threads_stack_push(cap, SIZEOF_W(StgUpdateFrame), &q);
    uf->info = &stg_UPDATE_FRAME_info;
    uf->updatee = q;
    StgClosure *v;
    if (info->type == THUNK_STATIC) {
        /* Tagged: eval_update sees a CAF without reading its header. */
        uf->updatee = TAG_CLOSURE(1, q);
        if (!claim(cap, q)) {
            threads_stack_pop(cap, SIZEOF_W(StgUpdateFrame));
            return EVAL_RETRY;
        }
        statics_new_caf((StgCAF *)q);
        v = info->entry.thunk(cap, q, NULL);
    } else {
        v = enter_ap(cap, q);
        if (v == EVAL_RETRY) {
            *qp = ((StgUpdateFrame *)cap->r.stack->sp)->updatee;
            threads_stack_pop(cap, SIZEOF_W(StgUpdateFrame));
            return EVAL_RETRY;
        }
    }
    if (v == NULL)
        entry_returned_null(info);
    if (((StgClosure *)cap->r.stack->sp)->info != &stg_UPDATE_FRAME_info)
        entry_left_frames(info);
    return v;
}

/*
 * The loop's own thunk update: t is a thunk this thread evaluated (or the
 * BLACKHOLE a collection made of it). As rts_update_thunk, without its
 * checks; the words after the IND are left as they are unless someone will
 * walk the heap (sm_zero_slop).
 */
static void eval_update_slow(Capability *cap, StgClosure *t, StgClosure *v);

/* t becomes an indirection to v, remembered if old: the update when no slow case applies. */
RTS_INLINE void update_plain(Capability *cap, StgClosure *t, StgClosure *v)
{
    /* Not even t's header is read: it may be a miss, and nothing here needs it.
     * The word is t's owner slot until now, which waiting threads read: an atomic
     * (relaxed: a plain move) store. See Note [The owner slot is shared]. */
    __atomic_store_n(&((StgInd *)t)->indirectee, v, __ATOMIC_RELAXED);
    __atomic_store_n(&t->info, &stg_IND_info, __ATOMIC_RELEASE);
    bdescr *bd = Bdescr(t);
    if (bd->gen_no > 0)
        mut_list_record(cap, t, bd->gen_no);
}

RTS_INLINE void eval_update(Capability *cap, StgClosure *t, StgClosure *v)
{
    /* One test for all the rare cases: Note [One word for the slow update]. */
    if (RTS_UNLIKELY((GET_TAG(t) | HS_REGS(cap)->barrier |
                      __atomic_load_n(&eval_slow, __ATOMIC_RELAXED)) != 0)) {
        eval_update_slow(cap, t, v);
        return;
    }
    update_plain(cap, t, v);
}

static void eval_update_slow(Capability *cap, StgClosure *t, StgClosure *v)
{
    if ((GET_TAG(t) != 0) | sm_zero_slop | (HS_REGS(cap)->barrier != 0)) {
        /* A CAF (tagged), slop to zero, or free variables to report to a mark. */
        rts_update_thunk(cap, UNTAG(t), v);
    } else {
        update_plain(cap, t, v);
    }
    bh_updated();
}

/*
 * Start evaluating the selector thunk q (slot 0): its update frame and a
 * selector frame above it, pushed together; returns the selectee.
 */
RTS_INLINE StgClosure *enter_selector(Capability *cap, StgClosure **qp)
{
    StgClosure *q = *qp;
    StgPtr sp = eval_push(cap, SIZEOF_W(EvalSelFrame) + SIZEOF_W(StgUpdateFrame), &q);
    EvalSelFrame *sf = (EvalSelFrame *)sp;
    sf->info = &eval_sel_frame_info;
    sf->field = q->info->tag;
    StgUpdateFrame *uf = (StgUpdateFrame *)(sp + SIZEOF_W(EvalSelFrame));
    uf->info = &stg_UPDATE_FRAME_info;
    uf->updatee = q;
    if (RTS_UNLIKELY(!claim(cap, q))) {
        *qp = q;
        threads_stack_pop(cap, SIZEOF_W(EvalSelFrame) + SIZEOF_W(StgUpdateFrame));
        return EVAL_RETRY;
    }
    return ((StgSelector *)q)->selectee;
}

/* Field `field` of the value v, for a selector frame. */
static RTS_NORETURN void bad_selection(const StgInfoTable *ci, StgWord field)
{
    msg_fatal(1,
              "rts_eval: a selector thunk picks field %lu of %s (closure type %u, %u "
              "pointer fields), which is not a constructor with that field",
              (unsigned long)field, name_of(ci, "a closure"), (unsigned)ci->type,
              (unsigned)ci->ptrs);
}

RTS_INLINE StgClosure *select_field(StgClosure *v, StgWord field)
{
    StgClosure *c = UNTAG(v);
    const StgInfoTable *ci = c->info;
    if (RTS_UNLIKELY((ci->type != CONSTR && ci->type != CONSTR_STATIC) || field >= ci->ptrs))
        bad_selection(ci, field);
    return c->payload[field];
}

/* Evaluate p to a value. See Note [The evaluation loop] and Note [Tail calls]. */
RTS_INLINE StgClosure *eval_loop_from(Capability *cap, StgClosure *p, StgWord pending)
{
    for (;;) {
        StgClosure *v;
        if (p == NULL)
            msg_fatal(1, "rts_eval: NULL is not a closure");
        if (GET_TAG(p) != 0) {
            v = p;
        } else {
            const StgInfoTable *info = __atomic_load_n(&p->info, __ATOMIC_ACQUIRE);
            uint32_t type = info->type;
            /* The common cases first, without a jump table. */
            if (RTS_LIKELY(type == THUNK) || type == THUNK_SELECTOR || type == AP ||
                type == THUNK_STATIC) {
                StgWord owner = slot_peek(p);
                if (owner != 0) {
                    p = blackhole_wait(cap, p, owner);
                    continue;
                }
                if (pending > 0 &&
                    ((StgClosure *)cap->r.stack->sp)->info == &stg_UPDATE_FRAME_info) {
                    /* A tail call: see Note [Tail calls]. */
                    StgClosure *t = ((StgUpdateFrame *)cap->r.stack->sp)->updatee;
                    threads_stack_pop(cap, SIZEOF_W(StgUpdateFrame));
                    pending--;
                    eval_update(cap, t, p);
                }
                StgClosure *next;
                if (RTS_LIKELY(type == THUNK)) {
                    next = enter_plain_thunk(cap, &p, info);
                    pending++;
                } else if (type == THUNK_SELECTOR) {
                    next = enter_selector(cap, &p);
                    pending += 2;
                } else {
                    next = enter_thunk(cap, &p, info);
                    pending++;
                }
                if (RTS_UNLIKELY(next == EVAL_RETRY)) {
                    /* Another thread claimed it first: see what it is now. */
                    pending -= type == THUNK_SELECTOR ? 2 : 1;
                    continue;
                }
                p = next;
                continue;
            }
            if (type == IND) {
                p = ((StgInd *)p)->indirectee;
                continue;
            }
            if (type == IND_STATIC) {
                p = ((StgCAF *)p)->indirectee;
                continue;
            }
            if (type == BLACKHOLE) {
                p = blackhole_wait(cap, p,
                                   __atomic_load_n(&((StgBlackhole *)p)->owner, __ATOMIC_RELAXED));
                continue;
            }
            if (type == INVALID_OBJECT || type >= N_CLOSURE_TYPES || layout_is_frame_type(type))
                msg_fatal(1, "rts_eval: %p is not a closure (closure type %u)", (void *)p,
                          (unsigned)type);
            v = p;
        }

        /* v is a value: give it to the pending frames. */
        for (;;) {
            if (pending == 0)
                return v;
            StgClosure *top = (StgClosure *)cap->r.stack->sp;
            if (top->info == &stg_UPDATE_FRAME_info) {
                StgClosure *t = ((StgUpdateFrame *)top)->updatee;
                threads_stack_pop(cap, SIZEOF_W(StgUpdateFrame));
                pending--;
                eval_update(cap, t, v);
                continue;
            }
            ASSERT(top->info == &eval_sel_frame_info);
            StgWord field = ((EvalSelFrame *)top)->field;
            threads_stack_pop(cap, SIZEOF_W(EvalSelFrame));
            pending--;
            p = select_field(v, field);
            break;
        }
    }
}

/* --- entry points: onto the evaluation stack ------------------------------------------- */

typedef struct {
    Capability *cap;
    StgClosure *p;
    StgClosure *f;
    StgWord n;
    StgClosure **args;
} EvalCall;

/* The loop, out of line, for the paths that are not the hot one. */
static StgClosure *eval_loop_call(Capability *cap, StgClosure *p)
{
    return eval_loop_from(cap, p, 0);
}

static StgClosure *eval_loop_pending(Capability *cap, StgClosure *p, StgWord pending)
{
    return eval_loop_from(cap, p, pending);
}

/* Is the untagged closure c, whose info table is ci, a thunk that nobody is evaluating? */
RTS_INLINE bool unclaimed_thunk(StgClosure *c, const StgInfoTable *ci)
{
    uint32_t type = ci->type;
    return (type == THUNK || type == THUNK_SELECTOR || type == AP || type == THUNK_STATIC) &&
           slot_peek(c) == 0;
}

/*
 * Pop `words` words off the current chunk, whose top is `top`, following an
 * underflow; returns the new top. As threads_stack_pop, with the top kept
 * in a register rather than read back from the chunk.
 */
RTS_INLINE StgPtr eval_pop(Capability *cap, StgPtr top, StgWord words)
{
    StgPtr below = top + words;
    cap->r.stack->sp = below;
    if (RTS_UNLIKELY(((StgClosure *)below)->info == &stg_UNDERFLOW_FRAME_info)) {
        rts_stack_underflow(cap);
        below = cap->r.stack->sp;
    }
    return below;
}

RTS_INLINE StgPtr eval_pop_update_at(Capability *cap, StgPtr top, StgClosure *v)
{
    StgClosure *t = ((StgUpdateFrame *)top)->updatee;
    StgPtr below = eval_pop(cap, top, SIZEOF_W(StgUpdateFrame));
    eval_update(cap, t, v);
    return below;
}

/* Pop the update frame on top of the stack and update its thunk with v. */
RTS_INLINE void eval_pop_update(Capability *cap, StgClosure *v)
{
    eval_pop_update_at(cap, cap->r.stack->sp, v);
}

/*
 * Note [The fast paths of rts_eval]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The loop (Note [The evaluation loop]) handles every case; the shapes a
 * lazy program evaluates most are also done in straight-line code, each
 * exactly as the loop would do it (the same frames, claims and updates, in
 * the same order), handing over to the loop, with the frames pushed so far
 * counted as pending, the moment anything else turns up:
 *
 *   - a THUNK whose entry returns a tagged value;
 *   - a THUNK_SELECTOR whose selectee is evaluated (tagged, or an IND to a
 *     tagged value): the field is picked with no frame at all. A tagged
 *     field is the selector's value; an unevaluated thunk is a tail call
 *     (Note [Tail calls]): the selector is updated with an indirection to
 *     it and the fast path starts again on it, so a run of selectors whose
 *     pairs exist (lazystream's fst/snd chains) costs no frame;
 *   - a THUNK_SELECTOR whose selectee is a THUNK nobody is evaluating: the
 *     selector's update and selector frames and the thunk's update frame
 *     and free variables, all in one push; the selector is claimed, then
 *     the thunk, and its entry runs; if it returns a tagged constructor,
 *     both are updated and the field taken as above. If the chunk has no
 *     room for the whole push, the loop does it frame by frame (a push that
 *     collects would leave the selectee's pointer stale).
 *
 * The fast paths never call themselves (a tail call goes round again), so
 * they add no C stack to the loop's. Their frames are found again as the
 * top of the stack (Note [Moving frames] in threads.h), with one shortcut:
 * below a root frame nothing moves, so a thunk with free variables finds
 * its update frame right under the root frame it pushed, and every pop
 * keeps the new top in a register (eval_pop) instead of reading it back
 * from the chunk. That, one push instead of two for a selector, and the
 * single test of Note [One word for the slow update] are most of what
 * they gain (bench/README.md, lazystream): the rest of the cost is the
 * protocol itself, a push and an update per thunk.
 *
 * Nothing about the threaded way differs: claims are claim()'s CAS when
 * several capabilities run, a lost claim hands over to the loop (which
 * waits for the winner), and the slot is only looked at with slot_peek's
 * atomic load. The checks on entry code stay (a frame left pushed, NULL
 * returned) with the same messages.
 */
RTS_INLINE StgClosure *eval_selector_thunk(Capability *cap, StgClosure *s);

RTS_INLINE StgClosure *eval_fast(Capability *cap, StgClosure *p)
{
    for (;;) {
        if (RTS_UNLIKELY(p == NULL || GET_TAG(p) != 0))
            break;
        const StgInfoTable *info = __atomic_load_n(&p->info, __ATOMIC_ACQUIRE);
        uint32_t type = info->type;
        if (RTS_LIKELY(type == THUNK)) {
            if (RTS_UNLIKELY(slot_peek(p) != 0))
                break;
            StgPtr top = NULL; /* as in enter_plain_thunk */
            StgClosure *v = enter_plain_thunk_at(cap, &p, info, &top);
            if (RTS_UNLIKELY(GET_TAG(v) == 0)) {
                if (v == EVAL_RETRY)
                    break; /* another thread claimed it: p is where it is now */
                return eval_loop_pending(cap, v, 1); /* a tail call, or an untagged value */
            }
            eval_pop_update_at(cap, top, v);
            return v;
        }
        if (type != THUNK_SELECTOR || slot_peek(p) != 0)
            break;
        /* A selector: its selectee evaluated, or a thunk to evaluate first. */
        StgClosure *c = ((StgSelector *)p)->selectee;
        if (GET_TAG(c) == 0) {
            const StgInfoTable *ci = __atomic_load_n(&c->info, __ATOMIC_ACQUIRE);
            if (ci == &stg_IND_info) {
                c = ((StgInd *)c)->indirectee;
                if (GET_TAG(c) == 0)
                    break;
            } else if (ci->type == THUNK && slot_peek(c) == 0) {
                return eval_selector_thunk(cap, p);
            } else {
                break;
            }
        }
        StgClosure *f = select_field(c, info->tag);
        if (GET_TAG(f) != 0) {
            if (RTS_UNLIKELY(!claim(cap, p)))
                break;
            eval_update(cap, p, f);
            return f;
        }
        /* An unevaluated field: a tail call (Note [Tail calls]). */
        const StgInfoTable *fi = __atomic_load_n(&f->info, __ATOMIC_ACQUIRE);
        if (!unclaimed_thunk(f, fi) || RTS_UNLIKELY(!claim(cap, p)))
            break;
        eval_update(cap, p, f);
        p = f;
    }
    return eval_loop_call(cap, p);
}

/*
 * The third case of Note [The fast paths of rts_eval]: the selector s and
 * its selectee, a THUNK, are both unclaimed.
 */
RTS_INLINE StgClosure *eval_selector_thunk(Capability *cap, StgClosure *s)
{
    /*
     * One push for every frame: (from the top) the selectee's free
     * variables and update frame, the selector frame, the selector's update
     * frame. Pushing may not collect here (c would go stale): if the chunk
     * is full, the loop does it frame by frame.
     */
    StgClosure *c = ((StgSelector *)s)->selectee;
    const StgInfoTable *ci = __atomic_load_n(&c->info, __ATOMIC_ACQUIRE);
    StgWord n = ci->ptrs;
    StgWord fv_words = n ? SIZEOF_W(StgRetDyn) + n : 0;
    StgWord words = fv_words + 2 * SIZEOF_W(StgUpdateFrame) + SIZEOF_W(EvalSelFrame);
    StgStack *st = cap->r.stack;
    StgPtr sp = st->sp - words;
    if (RTS_UNLIKELY(sp < st->stack))
        return eval_loop_call(cap, s);
    st->sp = sp;
    StgPtr c_top = sp + fv_words;
    StgPtr sel_top = c_top + SIZEOF_W(StgUpdateFrame);
    StgPtr s_top = sel_top + SIZEOF_W(EvalSelFrame);
    StgUpdateFrame *suf = (StgUpdateFrame *)s_top;
    suf->info = &stg_UPDATE_FRAME_info;
    suf->updatee = s;
    EvalSelFrame *sf = (EvalSelFrame *)sel_top;
    sf->info = &eval_sel_frame_info;
    sf->field = s->info->tag;
    StgUpdateFrame *cuf = (StgUpdateFrame *)c_top;
    cuf->info = &stg_UPDATE_FRAME_info;
    cuf->updatee = c;
    StgClosure **fv = NULL;
    if (n) {
        StgRetDyn *f = (StgRetDyn *)sp;
        f->info = &stg_RET_DYN_info;
        f->size = n;
        copy_words(f->slots, ((StgThunk *)c)->payload, n);
        fv = f->slots;
    }
    if (RTS_UNLIKELY(!claim(cap, s))) {
        st->sp = s_top + SIZEOF_W(StgUpdateFrame);
        return eval_loop_call(cap, s);
    }
    if (RTS_UNLIKELY(!claim(cap, c))) {
        st->sp = sel_top;
        return eval_loop_pending(cap, c, 2);
    }
    StgClosure *v = ci->entry.thunk(cap, c, fv);
    StgPtr top = after_entry(cap, sp, fv_words, ci, v);
    if (RTS_UNLIKELY(GET_TAG(v) == 0)) {
        cap->r.stack->sp = top;
        return eval_loop_pending(cap, v, 3);
    }
    top = eval_pop_update_at(cap, top, v); /* the selectee's */
    ASSERT(((StgClosure *)top)->info == &eval_sel_frame_info);
    StgWord field = ((EvalSelFrame *)top)->field;
    top = eval_pop(cap, top, SIZEOF_W(EvalSelFrame));
    StgClosure *f = select_field(v, field);
    if (RTS_LIKELY(GET_TAG(f) != 0)) {
        eval_pop_update_at(cap, top, f); /* the selector's */
        return f;
    }
    return eval_loop_pending(cap, f, 1);
}

static void *eval_on_stack(void *arg)
{
    EvalCall *c = arg;
    return eval_fast(c->cap, c->p);
}

/* The outermost evaluation of a thread, or one past the check mark. */
static StgClosure *eval_enter(Capability *cap, StgClosure *p)
{
    if (cap != NULL && cstack_on(cap)) {
        cstack_deep(cap);
        return eval_loop_call(cap, p);
    }
    if (cap == NULL || cap != cap_mine())
        cap_misuse("rts_eval", cap);
    EvalCall c = {.cap = cap, .p = p};
    return cstack_run(cap, eval_on_stack, &c);
}

StgClosure *rts_eval_slow(Capability *cap, StgClosure *p)
{
    if (RTS_LIKELY(cap != NULL) && cstack_fast(cap))
        return eval_fast(cap, p);
    return eval_enter(cap, p);
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

/*
 * Apply f to n rooted arguments. The result is what the last function's
 * entry returned: a value, or a thunk in tail position (the caller
 * evaluates it).
 */
static StgClosure *apply(Capability *cap, StgClosure *f, StgWord n, StgClosure **args)
{
    /* r[0]: the function being applied. */
    StgClosure **r = rts_push_roots(cap, 1);
    r[0] = f;
    while (n > 0) {
        r[0] = rts_eval(cap, r[0]);
        StgClosure *fn = UNTAG(r[0]);
        const StgInfoTable *info = fn->info;
        if (info->type == FUN || info->type == FUN_STATIC) {
            StgWord arity = info->tag;
            if (arity == 0)
                msg_fatal(1, "rts_apply: %s has arity 0", name_of(info, "a function"));
            DEBUG_TRACE(apply, "apply: %s (arity %lu) to %lu arguments%s",
                        name_of(info, "a function"), (unsigned long)arity, (unsigned long)n,
                        n < arity   ? ": a PAP"
                        : n > arity ? ": the rest to its result"
                                    : "");
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
            if (res == NULL)
                msg_fatal(1, "rts_apply: the entry code of %s returned NULL",
                          name_of(info, "a function"));
            r[0] = res;
            args += arity;
            n -= arity;
        } else if (info->type == PAP) {
            StgPAP *pap = (StgPAP *)fn;
            StgWord held = pap->n_args, missing = pap->arity;
            DEBUG_TRACE(apply, "apply: a PAP of %s (%lu held, %lu missing) to %lu arguments",
                        name_of(UNTAG(pap->fun)->info, "a function"), (unsigned long)held,
                        (unsigned long)missing, (unsigned long)n);
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
            const StgInfoTable *finfo = fun->info;
            StgClosure *res = finfo->entry.fun(cap, fun, fv, &all[1]);
            if (fv)
                rts_pop_roots(cap, fv);
            rts_pop_roots(cap, all);
            if (res == NULL)
                msg_fatal(1, "rts_apply: the entry code of %s returned NULL",
                          name_of(finfo, "a function"));
            r[0] = res;
            args += missing;
            n -= missing;
        } else {
            msg_fatal(1, "rts_apply: %s is not a function (closure type %u)",
                      name_of(info, "the closure"), (unsigned)info->type);
        }
    }
    StgClosure *res = r[0];
    rts_pop_roots(cap, r);
    return res;
}

static StgClosure *apply_and_eval(Capability *cap, StgClosure *f, StgWord n, StgClosure **args)
{
    StgClosure *v = apply(cap, f, n, args);
    return eval_loop_call(cap, v);
}

static void *apply_on_stack(void *arg)
{
    EvalCall *c = arg;
    return apply_and_eval(c->cap, c->f, c->n, c->args);
}

StgClosure *rts_apply(Capability *cap, StgClosure *f, StgWord n, StgClosure **args)
{
    if (cap == NULL)
        cap_misuse("rts_apply", cap);
    if (cstack_fast(cap))
        return apply_and_eval(cap, f, n, args);
    if (cstack_on(cap)) {
        cstack_deep(cap);
        return apply_and_eval(cap, f, n, args);
    }
    if (cap != cap_mine()) /* cap is not NULL: checked above */
        cap_misuse("rts_apply", cap);
    EvalCall c = {.cap = cap, .f = f, .n = n, .args = args};
    return cstack_run(cap, apply_on_stack, &c);
}

StgClosure *rts_mk_ap(Capability *cap, StgClosure *f, StgWord n, StgClosure **args)
{
    if (cap == NULL || cap != cap_mine())
        cap_misuse("rts_mk_ap", cap);
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
