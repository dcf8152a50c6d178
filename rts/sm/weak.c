/*
 * Weak pointers. See Note [Weak pointers] in weak.h.
 */
#include "sm/weak.h"

#include <pthread.h>
#include <stdlib.h>

#include "capability.h"
#include "hooks.h"
#include "messages.h"
#include "sm/barrier_sink.h"
#include "sm/evac.h"
#include "sm/gc_util.h"
#include "sm/nonmoving.h"
#include "startup.h"
#include "trace/debug_trace.h"

/* weak_lock guards the table against mutator threads (rts_mk_weak, rts_finalize_weak); the
 * collector changes it with the world stopped. */
static pthread_mutex_t weak_lock = PTHREAD_MUTEX_INITIALIZER;
static StgWeak **table;
static bool *kept; /* this collection: the key was found alive */
static StgWord n_weak, table_cap;

typedef struct {
    HsFinalizer fn;
    void *env;
} Pending;

/* pending_lock guards the queue of finalizers to run (filled by collections, drained after). */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static Pending *pending;
static StgWord n_pending, pending_cap;
static bool running_finalizers;

void weak_init(void)
{
    table = NULL;
    kept = NULL;
    n_weak = table_cap = 0;
    pending = NULL;
    n_pending = pending_cap = 0;
}

void weak_exit(void)
{
    free(table);
    free(kept);
    free(pending);
    weak_init();
}

StgWeak *rts_mk_weak(Capability *cap, StgClosure *key, StgClosure *value, HsFinalizer finalizer,
                     void *env)
{
    startup_require_running("rts_mk_weak");
    StgClosure **r = rts_push_roots(cap, 2);
    r[0] = key;
    r[1] = value;
    StgWeak *w = (StgWeak *)rts_alloc(cap, SIZEOF_W(StgWeak));
    w->info = &stg_WEAK_info;
    w->key = r[0];
    w->value = r[1];
    w->finalizer = NULL;
    w->link = NULL;
    w->cfinalizer = finalizer;
    w->cfinalizer_env = env;
    rts_pop_roots(cap, r);
    pthread_mutex_lock(&weak_lock);
    if (n_weak == table_cap) {
        table_cap = table_cap ? table_cap * 2 : 64;
        table = hooks_realloc(table, table_cap * sizeof *table, "weak pointers");
        kept = hooks_realloc(kept, table_cap * sizeof *kept, "weak pointers");
    }
    table[n_weak++] = w;
    pthread_mutex_unlock(&weak_lock);
    DEBUG_TRACE(weak, "weak: new weak pointer %p (key %p, %s finalizer)", (void *)w, (void *)w->key,
                finalizer ? "a C" : "no");
    return w;
}

HsBool rts_deref_weak(Capability *cap, const StgWeak *w, StgClosure **value)
{
    if (cap == NULL || cap != cap_mine())
        cap_misuse("rts_deref_weak", cap);
    w = (const StgWeak *)UNTAG((const StgClosure *)w);
    if (w->info == &stg_DEAD_WEAK_info) {
        *value = NULL;
        return 0;
    }
    StgClosure *v = w->value;
    /* Handing the value out makes it reachable from the mutator: a mark must see it. */
    if (RTS_UNLIKELY(HS_REGS(cap)->barrier != 0))
        sm_barrier_note(cap, (StgClosure *)w, (StgClosure **)&w->value, v);
    *value = v;
    return 1;
}

static void queue(HsFinalizer fn, void *env)
{
    if (!fn)
        return;
    pthread_mutex_lock(&pending_lock);
    if (n_pending == pending_cap) {
        pending_cap = pending_cap ? pending_cap * 2 : 16;
        pending = hooks_realloc(pending, pending_cap * sizeof *pending, "finalizers");
    }
    pending[n_pending].fn = fn;
    pending[n_pending].env = env;
    n_pending++;
    pthread_mutex_unlock(&pending_lock);
}

static void kill(StgWeak *w)
{
    w->info = &stg_DEAD_WEAK_info;
    w->key = w->value = w->finalizer = NULL;
}

void rts_finalize_weak(Capability *cap, StgWeak *w)
{
    if (cap == NULL || cap != cap_mine())
        cap_misuse("rts_finalize_weak", cap);
    w = (StgWeak *)UNTAG((StgClosure *)w);
    pthread_mutex_lock(&weak_lock);
    for (StgWord i = 0; i < n_weak; i++) {
        if (table[i] == w) {
            HsFinalizer fn = w->cfinalizer;
            void *env = w->cfinalizer_env;
            table[i] = table[--n_weak];
            kill(w);
            pthread_mutex_unlock(&weak_lock);
            DEBUG_TRACE(weak, "weak: %p finalized by the program", (void *)w);
            if (fn)
                fn(env);
            return;
        }
    }
    pthread_mutex_unlock(&weak_lock);
}

void weak_gc_start(void)
{
    for (StgWord i = 0; i < n_weak; i++)
        kept[i] = false;
}

bool weak_traverse(gc_thread *gct)
{
    bool progress = false;
    for (StgWord i = 0; i < n_weak; i++) {
        if (kept[i])
            continue;
        /* Where the weak object is now, if something already reached it. */
        StgClosure *wc = (StgClosure *)table[i];
        gc_is_alive(&wc);
        StgClosure *key = ((StgWeak *)wc)->key;
        if (!gc_is_alive(&key))
            continue;
        /* The key lives: so do the weak object, its value and finalizer. */
        kept[i] = true;
        progress = true;
        gct->evac_gen_no = 0;
        if (!nm_weak_field_deferred((StgClosure *)table[i]))
            evacuate(gct, (StgClosure **)&table[i]);
        StgWeak *w = table[i];
        w->key = key;
        gct->evac_gen_no = Bdescr(w)->gen_no;
        /* A concurrent mark's start pause leaves the nonmoving heap's weak objects, values
         * and finalizers to the final pause, which knows whether the key lives (Note [The
         * concurrent mark]): marking an old weak here would keep alive the weaks whose key
         * it is. */
        if (!nm_weak_field_deferred(w->value))
            evacuate(gct, &w->value);
        if (!nm_weak_field_deferred(w->finalizer))
            evacuate(gct, &w->finalizer);
        gct->evac_gen_no = 0;
    }
    return progress;
}

void weak_gc_dead(void)
{
    StgWord j = 0;
    for (StgWord i = 0; i < n_weak; i++) {
        if (kept[i]) {
            table[j++] = table[i];
            continue;
        }
        /* Its key is dead. Its finalizer runs after the collection. */
        StgClosure *wc = (StgClosure *)table[i];
        StgWeak *old = (StgWeak *)wc;
        HsFinalizer fn = old->cfinalizer;
        void *env = old->cfinalizer_env;
        bool referenced = gc_is_alive(&wc);
        if (referenced) {
            /* Something still refers to the weak object: it must answer NULL. */
            kill((StgWeak *)wc);
        }
        DEBUG_TRACE(weak, "weak: %p's key died%s%s", (void *)old,
                    referenced ? "; the weak object answers NULL from now on" : "",
                    fn ? "; its finalizer is queued" : "");
        queue(fn, env);
    }
    n_weak = j;
}

void weak_run_pending(void)
{
    /*
     * Take the queue, then run it without the lock: another thread's
     * collection may queue more meanwhile (they run after that one). A
     * finalizer may not allocate, so none of this recurses.
     */
    for (;;) {
        pthread_mutex_lock(&pending_lock);
        if (running_finalizers || n_pending == 0) {
            pthread_mutex_unlock(&pending_lock);
            return;
        }
        running_finalizers = true;
        Pending *batch = pending;
        StgWord n = n_pending;
        pending = NULL;
        n_pending = pending_cap = 0;
        pthread_mutex_unlock(&pending_lock);
        DEBUG_TRACE(weak, "weak: running %lu finalizers", (unsigned long)n);
        for (StgWord i = 0; i < n; i++)
            batch[i].fn(batch[i].env);
        free(batch);
        pthread_mutex_lock(&pending_lock);
        running_finalizers = false;
        pthread_mutex_unlock(&pending_lock);
    }
}

void weak_run_all_at_exit(void)
{
    DEBUG_TRACE(weak, "weak: exit: %lu weak pointers left, their finalizers run now",
                (unsigned long)n_weak);
    for (StgWord i = 0; i < n_weak; i++) {
        StgWeak *w = table[i];
        queue(w->cfinalizer, w->cfinalizer_env);
        kill(w);
    }
    n_weak = 0;
    weak_run_pending();
}

void weak_visit(void (*f)(void *ctx, StgClosure **slot), void *ctx)
{
    for (StgWord i = 0; i < n_weak; i++)
        f(ctx, (StgClosure **)&table[i]);
}

StgWord weak_count(void)
{
    return n_weak;
}
StgWeak *weak_get(StgWord i)
{
    return i < n_weak ? table[i] : NULL;
}
