/*
 * Threads and their stacks. See threads.h and Note [Active stacks].
 */
#include "threads.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cstack.h"
#include "eval.h"
#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/mut_list.h"
#include "sm/nonmoving.h"
#include "sm/storage.h"
#include "trace/trace.h"

/*
 * The thread table. table_lock guards table, table_size, n_live and
 * next_thread_id: OS threads enter and leave it whenever they first lock a
 * capability or call hs_thread_done, and the collector's root visit holds
 * it too. Entries are only ever whole threads (new_thread). The TSO an
 * entry points to belongs to the thread holding it, or to the collector.
 */
static StgTSO **table; /* NULL entries are free */
static uint32_t table_size;
static uint32_t n_live;
static StgWord next_thread_id = 1;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* Index of the calling OS thread's TSO in the table, or -1; and that TSO's id. */
static __thread int my_index = -1;
static __thread StgWord my_id;

const StgInfoTable stg_TSO_info = {
    .type = TSO,
    .ptrs = 2, /* link, stackobj */
    .nptrs = SIZEOF_W(StgTSO) - 3,
    .name = "TSO",
};
const StgInfoTable stg_STACK_info = {.type = STACK, .name = "STACK"};

void threads_init(void)
{
    table = NULL;
    table_size = n_live = 0;
    next_thread_id = 1;
}

void threads_exit(void)
{
    free(table);
    table = NULL;
    table_size = n_live = 0;
    my_index = -1;
}

static int table_insert(StgTSO *tso)
{
    pthread_mutex_lock(&table_lock);
    uint32_t i;
    for (i = 0; i < table_size && table[i]; i++)
        ;
    if (i == table_size) {
        uint32_t size = table_size ? table_size * 2 : 8;
        table = hooks_realloc(table, size * sizeof(StgTSO *), "thread table");
        for (uint32_t j = table_size; j < size; j++)
            table[j] = NULL;
        table_size = size;
    }
    table[i] = tso;
    n_live++;
    pthread_mutex_unlock(&table_lock);
    return (int)i;
}

static StgWord stack_words(uint64_t bytes)
{
    StgWord w = (StgWord)(bytes / sizeof(StgWord));
    /* Room for the header and at least a few frames. */
    return w < SIZEOF_W(StgStack) + 16 ? SIZEOF_W(StgStack) + 16 : w;
}

/* A fresh chunk of `words` words (header included), empty. May collect. */
static StgStack *new_chunk(Capability *cap, StgWord words)
{
    StgStack *s = sm_alloc_stack(cap, words);
    s->info = &stg_STACK_info;
    s->stack_size = words - SIZEOF_W(StgStack);
    s->dirty = 0;
    s->marking = 0;
    s->sp = s->stack + s->stack_size;
    return s;
}

void threads_stack_activate(Capability *cap, StgStack *s)
{
#ifdef THREADED_RTS
    nm_stack_before_run(cap, s); /* Note [Lazy stack marking] in sm/nonmoving_mark.c */
#endif
    if (!s->dirty) {
        s->dirty = 1;
        bdescr *bd = Bdescr(s);
        if (bd->gen_no > 0)
            mut_list_record(cap, (StgClosure *)s, bd->gen_no);
    }
}

static void tso_dirty(Capability *cap, StgTSO *tso)
{
    if (!(tso->flags & TSO_DIRTY)) {
        tso->flags |= TSO_DIRTY;
        bdescr *bd = Bdescr(tso);
        if (bd->gen_no > 0)
            mut_list_record(cap, (StgClosure *)tso, bd->gen_no);
    }
}

/*
 * A new thread: a TSO and its first chunk, entered in the table only when
 * whole (a collection while the chunk is allocated sees neither half in
 * the table; the TSO survives it in a scratch root).
 */
static int new_thread(Capability *cap)
{
    StgTSO *tso = (StgTSO *)rts_alloc(cap, SIZEOF_W(StgTSO));
    tso->info = &stg_TSO_info;
    tso->link = NULL;
    tso->stackobj = NULL;
    tso->spare = NULL;
    tso->flags = 0;
    tso->tot_stack_size = 0;
    tso->alloc_limit = 0;
    pthread_mutex_lock(&table_lock);
    tso->id = next_thread_id++;
    pthread_mutex_unlock(&table_lock);

    cap->scratch[1] = (StgClosure *)tso;
    StgStack *s = new_chunk(cap, stack_words(rts_flags.gc.init_stack_bytes));
    tso = (StgTSO *)cap->scratch[1];
    cap->scratch[1] = NULL;
    s->sp -= SIZEOF_W(StgStopFrame);
    ((StgStopFrame *)s->sp)->info = &stg_STOP_FRAME_info;
    tso->stackobj = s;
    tso->tot_stack_size = s->stack_size;
    /* Collections while the chunk was made may have promoted the TSO past its young chunk. */
    tso_dirty(cap, tso);
    return table_insert(tso);
}

void threads_attach(Capability *cap)
{
    if (my_index < 0) {
        cap->r.tso = NULL;
        cap->r.stack = NULL;
        my_index = new_thread(cap);
        my_id = table[my_index]->id;
        trace_thread_create(cap, table[my_index]);
    }
    StgTSO *tso = table[my_index];
    cap->r.tso = tso;
    cap->r.stack = tso->stackobj;
    cap->r.owner = (tso->id << 1) | 1;
    cap->cstack = cstack_mine();
    cstack_set_mark(cap);
    threads_stack_activate(cap, tso->stackobj);
}

void threads_detach(Capability *cap)
{
    cap->r.tso = NULL;
    cap->r.stack = NULL;
    cap->r.owner = 0;
    cap->cstack = NULL;
    cap->eval_mark = CSTACK_OFF;
}

void threads_finished_mine(void)
{
    if (my_index >= 0)
        trace_thread_finished(my_id);
}

void threads_forget_mine(void)
{
    if (my_index < 0)
        return;
    threads_finished_mine();
    pthread_mutex_lock(&table_lock);
    table[my_index] = NULL;
    n_live--;
    pthread_mutex_unlock(&table_lock);
    my_index = -1;
}

void threads_visit(void (*f)(void *ctx, StgClosure **slot), void *ctx)
{
    pthread_mutex_lock(&table_lock);
    for (uint32_t i = 0; i < table_size; i++)
        if (table[i])
            f(ctx, (StgClosure **)&table[i]);
    pthread_mutex_unlock(&table_lock);
}

uint32_t threads_made(void)
{
    pthread_mutex_lock(&table_lock);
    uint32_t n = (uint32_t)(next_thread_id - 1);
    pthread_mutex_unlock(&table_lock);
    return n;
}

/*
 * The thread passed -K. GHC's stackOverflowHook gets the size of the stack
 * chunk in use, as GHC's does (its thread has unwound to the chunk of its
 * top handler by then): not the whole stack.
 */
void threads_stack_overflow(Capability *cap)
{
    StgStack *s = cap->r.stack;
    W_ bytes = s ? (W_)((SIZEOF_W(StgStack) + s->stack_size) * sizeof(StgWord)) : 0;
    void (*hook)(W_) =
        rts_config.stackOverflowHook ? rts_config.stackOverflowHook : StackOverflowHook;
    hook(bytes);
    msg_exit(EXIT_STACKOVERFLOW);
}

/* Words of movable frames at the top of s (Note [Moving frames]), up to `limit_words`. */
static StgWord movable_words(const StgStack *s, StgWord limit_words)
{
    StgWord n = 0;
    StgPtr p = s->sp;
    for (;;) {
        const StgInfoTable *info = ((StgClosure *)p)->info;
        if (!eval_frame_is_movable(info))
            break;
        StgWord size =
            info == &stg_UPDATE_FRAME_info ? SIZEOF_W(StgUpdateFrame) : SIZEOF_W(EvalSelFrame);
        if (n + size > limit_words)
            break;
        n += size;
        p += size;
    }
    return n;
}

/* Start a new chunk with room for `words` more; see Note [Moving frames]. */
static void stack_overflow_to_new_chunk(Capability *cap, StgWord words, StgClosure **protect)
{
    StgTSO *tso = cap->r.tso;
    StgStack *old = cap->r.stack;
    StgWord carry = movable_words(old, rts_flags.gc.stack_chunk_buffer_bytes / sizeof(StgWord));
    StgWord need = SIZEOF_W(StgStack) + SIZEOF_W(StgUnderflowFrame) + carry + words;
    StgWord size = stack_words(rts_flags.gc.stack_chunk_bytes);
    if (size < need)
        size = need;

    StgStack *s = tso->spare;
    if (s && SIZEOF_W(StgStack) + s->stack_size >= need) {
        tso->spare = NULL;
        s->sp = s->stack + s->stack_size;
    } else {
        uint64_t max = rts_flags.gc.max_stack_bytes / sizeof(StgWord);
        if (max > 0 && tso->tot_stack_size + size > max)
            threads_stack_overflow(cap);
        cap->scratch[1] = protect ? *protect : NULL;
        s = new_chunk(cap, size);
        if (protect)
            *protect = cap->scratch[1];
        cap->scratch[1] = NULL;
        tso = cap->r.tso; /* a collection may have moved it */
    }
    s->sp -= SIZEOF_W(StgUnderflowFrame);
    StgUnderflowFrame *uf = (StgUnderflowFrame *)s->sp;
    uf->info = &stg_UNDERFLOW_FRAME_info;
    uf->next_chunk = old;
    if (carry > 0) {
        s->sp -= carry;
        memcpy(s->sp, old->sp, carry * sizeof(StgWord));
        old->sp += carry;
    }
    tso->stackobj = s;
    tso->tot_stack_size += s->stack_size;
    tso_dirty(cap, tso);
    cap->r.stack = s;
    threads_stack_activate(cap, s);
}

StgPtr threads_stack_push_slow(Capability *cap, StgWord words, StgClosure **protect)
{
    stack_overflow_to_new_chunk(cap, words, protect);
    StgStack *s = cap->r.stack;
    s->sp -= words;
    return s->sp;
}

StgClosure **rts_push_roots_slow(Capability *cap, StgWord n)
{
    if (cap == NULL || cap != cap_mine())
        cap_misuse("rts_push_roots_slow", cap);
    stack_overflow_to_new_chunk(cap, n + SIZEOF_W(StgRetDyn), NULL);
    return rts_push_roots(cap, n);
}

void rts_stack_underflow(Capability *cap)
{
    if (cap == NULL || cap != cap_mine())
        cap_misuse("rts_stack_underflow", cap);
    StgTSO *tso = cap->r.tso;
    StgStack *s = cap->r.stack;
    /* A chunk may be empty after its update frames moved on (Note [Moving frames]). */
    do {
        ASSERT(((StgClosure *)s->sp)->info == &stg_UNDERFLOW_FRAME_info);
        StgStack *older = ((StgUnderflowFrame *)s->sp)->next_chunk;
        tso->tot_stack_size -= s->stack_size;
        tso->stackobj = older;
        /* Keep the emptied chunk for the next overflow; the next GC drops it. */
        tso->spare = s;
        s = older;
    } while (((StgClosure *)s->sp)->info == &stg_UNDERFLOW_FRAME_info);
    tso_dirty(cap, tso);
    cap->r.stack = s;
    threads_stack_activate(cap, s);
}

void rts_bad_pop(Capability *cap, StgClosure **slots)
{
    if (cap == NULL || cap != cap_mine())
        cap_misuse("rts_bad_pop", cap);
    msg_fatal(1,
              "rts_pop_roots: the frame at %p is not the topmost frame (sp %p); "
              "root frames must be popped in the reverse order of their pushes",
              (void *)slots, (void *)(cap->r.stack ? cap->r.stack->sp : NULL));
}
