/*
 * Stable pointers and stable names. See stable.h.
 */
#include "stable.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "capability.h"
#include "hooks.h"
#include "messages.h"
#include "sm/evac.h"
#include "sm/gc_util.h"
#include "sm/mblock.h"
#include "sm/nonmoving.h"
#include "startup.h"
#include "trace/debug_trace.h"

/* --- stable pointers ------------------------------------------------------------- */

/*
 * A stable pointer is an index + 1 into this table. A free entry links to
 * the next free one; a used one may hold any value, tagged pointers and
 * NULL included, so the two are told apart by `used`, not by the value.
 *
 * Note [The stable-pointer lock]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * sp_lock (GHC's hs_lock_stable_ptr_table) guards every variable below:
 * the table (realloc'ed as it grows), its entries, the free list and the
 * count. getStablePtr, deRefStablePtr and hs_free_stable_ptr need no
 * capability (GHC allows freeing without one, and a thread may be inside
 * a collection on another OS thread meanwhile), so everything that walks
 * or changes the table takes the lock: these calls, the collector's walk
 * (stable_ptr_visit) and the sanity checker's walk and count
 * (stable_ptr_check). hs_free_stable_ptr_unsafe is for callers already
 * holding it. Lock order: sp_lock before sm_lock (evacuation may take
 * to-space blocks under sm_lock); nothing takes sp_lock while holding
 * sm_lock. A program must not allocate while it holds the lock itself.
 */
/*
 * sn_lock guards the stable-name table (names, the free list, the address
 * index) against threads making names at once; the collector rewrites it
 * with the world stopped.
 */
static pthread_mutex_t sn_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    StgClosure *addr;
    StgWord next_free; /* index + 1 of the next free entry, 0 = none (free entries) */
    bool used;
} SpEntry;

static SpEntry *stable_ptrs;
static StgWord sp_size, sp_live;
static StgWord sp_free; /* index + 1 of the first free entry; 0 = none */
static pthread_mutex_t sp_lock = PTHREAD_MUTEX_INITIALIZER;

void hs_lock_stable_ptr_table(void)
{
    pthread_mutex_lock(&sp_lock);
}
void hs_unlock_stable_ptr_table(void)
{
    pthread_mutex_unlock(&sp_lock);
}
void hs_lock_stable_tables(void)
{
    hs_lock_stable_ptr_table();
}
void hs_unlock_stable_tables(void)
{
    hs_unlock_stable_ptr_table();
}

static void sp_grow(void)
{
    StgWord old = sp_size;
    sp_size = old ? old * 2 : 64;
    stable_ptrs = hooks_realloc(stable_ptrs, sp_size * sizeof(SpEntry), "stable pointers");
    /* Thread the new entries onto the free list, lowest first. */
    for (StgWord i = old; i < sp_size; i++) {
        stable_ptrs[i].addr = NULL;
        stable_ptrs[i].used = false;
        stable_ptrs[i].next_free = i + 1 < sp_size ? i + 2 : sp_free;
    }
    sp_free = old + 1;
}

HsStablePtr getStablePtr(StgPtr p)
{
    startup_require_running("getStablePtr");
    hs_lock_stable_ptr_table();
    if (sp_free == 0)
        sp_grow();
    StgWord i = sp_free - 1;
    sp_free = stable_ptrs[i].next_free;
    stable_ptrs[i].addr = (StgClosure *)p;
    stable_ptrs[i].used = true;
    sp_live++;
    hs_unlock_stable_ptr_table();
    DEBUG_TRACE(stable, "stable: stable pointer %lu to %p", (unsigned long)(i + 1), (void *)p);
    return (HsStablePtr)(i + 1);
}

/*
 * The index of a live stable pointer; anything else is the program's
 * mistake (exit 1). Caller holds sp_lock.
 */
static StgWord sp_index(HsStablePtr sp, const char *who)
{
    StgWord i = (StgWord)sp - 1;
    if (sp == NULL || i >= sp_size)
        msg_fatal(1, "%s: 0x%lx is not a stable pointer", who, (unsigned long)sp);
    if (!stable_ptrs[i].used)
        msg_fatal(1, "%s: stable pointer 0x%lx was freed already", who, (unsigned long)sp);
    return i;
}

StgPtr deRefStablePtr(HsStablePtr sp)
{
    startup_require_running("deRefStablePtr");
    hs_lock_stable_ptr_table();
    StgPtr p = (StgPtr)stable_ptrs[sp_index(sp, "deRefStablePtr")].addr;
    hs_unlock_stable_ptr_table();
    return p;
}

/* Freeing NULL does nothing, as in GHC (no stable pointer is NULL). */
static void free_sp(HsStablePtr sp, const char *who)
{
    if (sp == NULL)
        return;
    StgWord i = sp_index(sp, who);
    stable_ptrs[i].used = false;
    stable_ptrs[i].addr = NULL;
    stable_ptrs[i].next_free = sp_free;
    sp_free = i + 1;
    sp_live--;
    DEBUG_TRACE(stable, "stable: stable pointer %lu freed", (unsigned long)(i + 1));
}

void hs_free_stable_ptr_unsafe(HsStablePtr sp)
{
    startup_require_running("hs_free_stable_ptr_unsafe");
    free_sp(sp, "hs_free_stable_ptr_unsafe");
}

static void free_locked(HsStablePtr sp, const char *who)
{
    startup_require_running(who);
    hs_lock_stable_ptr_table();
    free_sp(sp, who);
    hs_unlock_stable_ptr_table();
}

void hs_free_stable_ptr(HsStablePtr sp)
{
    free_locked(sp, "hs_free_stable_ptr");
}

void freeStablePtr(HsStablePtr sp)
{
    free_locked(sp, "freeStablePtr");
}

void stable_ptr_visit(void (*f)(void *ctx, StgClosure **slot), void *ctx)
{
    hs_lock_stable_ptr_table(); /* See Note [The stable-pointer lock] */
    for (StgWord i = 0; i < sp_size; i++)
        if (stable_ptrs[i].used)
            f(ctx, &stable_ptrs[i].addr);
    hs_unlock_stable_ptr_table();
}

StgWord stable_ptr_count(void)
{
    hs_lock_stable_ptr_table();
    StgWord n = sp_live;
    hs_unlock_stable_ptr_table();
    return n;
}

void stable_ptr_check(void (*check)(const char *what, StgClosure *const *slot))
{
    hs_lock_stable_ptr_table(); /* See Note [The stable-pointer lock] */
    StgWord used = 0;
    for (StgWord i = 0; i < sp_size; i++)
        if (stable_ptrs[i].used) {
            check("a stable pointer", &stable_ptrs[i].addr);
            used++;
        }
    StgWord live = sp_live;
    hs_unlock_stable_ptr_table();
    if (used != live)
        msg_barf("stable pointers: %lu in use, %lu counted", (unsigned long)used,
                 (unsigned long)live);
}

/* --- stable names --------------------------------------------------------------- */

typedef struct {
    StgClosure *addr;      /* the object, NULL once dead */
    StgStableName *sn_obj; /* NULL: the entry is free */
} SnEntry;

static SnEntry *names;
static StgWord sn_size, sn_live;
static StgWord *sn_free_list; /* stack of free indices */
static StgWord n_sn_free;
/* address -> index + 1, open addressing; rebuilt after each collection */
static StgWord *sn_keys, *sn_vals, sn_hash_cap;

static StgWord sn_slot(StgWord key)
{
    StgWord i = ((key >> 3) * 0x9E3779B97F4A7C15ull) & (sn_hash_cap - 1);
    while (sn_keys[i] && sn_keys[i] != key)
        i = (i + 1) & (sn_hash_cap - 1);
    return i;
}

static void sn_hash_rebuild(void)
{
    StgWord want = 64;
    while (want < sn_live * 2 + 2)
        want *= 2;
    if (want != sn_hash_cap) {
        free(sn_keys);
        free(sn_vals);
        sn_hash_cap = want;
        sn_keys = hooks_calloc(want, sizeof(StgWord), "stable name index");
        sn_vals = hooks_calloc(want, sizeof(StgWord), "stable name index");
    } else {
        for (StgWord i = 0; i < sn_hash_cap; i++)
            sn_keys[i] = 0;
    }
    for (StgWord i = 0; i < sn_size; i++)
        if (names[i].sn_obj && names[i].addr) {
            StgWord s = sn_slot((StgWord)names[i].addr);
            sn_keys[s] = (StgWord)names[i].addr;
            sn_vals[s] = i + 1;
        }
}

static StgClosure *skip_indirections(StgClosure *p)
{
    p = UNTAG(p);
    /* Another thread may be updating p: the info pointer is published last (acquire). */
    while (HEAP_ALLOCED(p) && __atomic_load_n(&p->info, __ATOMIC_ACQUIRE)->type == IND)
        p = UNTAG(((StgInd *)p)->indirectee);
    return p;
}

StgStableName *rts_make_stable_name(Capability *cap, StgClosure *p)
{
    startup_require_running("rts_make_stable_name");
    p = skip_indirections(p);
    /*
     * Allocate first (it may collect, and collections rewrite the table),
     * then look and insert under sn_lock: another thread may be making a
     * name for the same object. A name made for nothing stays garbage.
     */
    cap->scratch[0] = p;
    StgStableName *sn = (StgStableName *)rts_alloc(cap, SIZEOF_W(StgStableName));
    p = cap->scratch[0];
    cap->scratch[0] = NULL;
    /* Both copies of a duplicated object have one name (Note [Evacuating sparse segments]). */
    p = UNTAG(nm_forward(p));
    sn->info = &stg_STABLE_NAME_info;
    sn->sn = 0;

    pthread_mutex_lock(&sn_lock);
    if (sn_hash_cap) {
        StgWord s = sn_slot((StgWord)p);
        if (sn_keys[s]) {
            StgStableName *old = names[sn_vals[s] - 1].sn_obj;
            pthread_mutex_unlock(&sn_lock);
            DEBUG_TRACE(stable, "stable: %p already has stable name %lu", (void *)p,
                        (unsigned long)old->sn);
            return old;
        }
    }
    if (n_sn_free == 0) {
        StgWord old = sn_size;
        sn_size = old ? old * 2 : 64;
        names = hooks_realloc(names, sn_size * sizeof(SnEntry), "stable names");
        sn_free_list = hooks_realloc(sn_free_list, sn_size * sizeof(StgWord), "stable names");
        for (StgWord i = sn_size; i > old; i--) {
            names[i - 1].addr = NULL;
            names[i - 1].sn_obj = NULL;
            sn_free_list[n_sn_free++] = i - 1;
        }
    }
    StgWord i = sn_free_list[--n_sn_free];
    sn->info = &stg_STABLE_NAME_info;
    sn->sn = i;
    names[i].addr = p;
    names[i].sn_obj = sn;
    sn_live++;
    if ((sn_live + 1) * 2 > sn_hash_cap)
        sn_hash_rebuild();
    else {
        StgWord s = sn_slot((StgWord)p);
        sn_keys[s] = (StgWord)p;
        sn_vals[s] = i + 1;
    }
    pthread_mutex_unlock(&sn_lock);
    DEBUG_TRACE(stable, "stable: stable name %lu for %p", (unsigned long)i, (void *)p);
    return sn;
}

void stable_name_gc(void)
{
    if (sn_live == 0)
        return;
#ifdef DEBUG
    StgWord before = sn_live;
#endif
    for (StgWord i = 0; i < sn_size; i++) {
        SnEntry *e = &names[i];
        if (!e->sn_obj)
            continue;
        if (!gc_is_alive((StgClosure **)&e->sn_obj)) {
            /* Nobody can compare this name any more: reuse the entry. */
            e->sn_obj = NULL;
            e->addr = NULL;
            sn_free_list[n_sn_free++] = i;
            sn_live--;
            continue;
        }
        if (e->addr && !gc_is_alive(&e->addr))
            e->addr = NULL;
    }
    DEBUG_TRACE(stable, "stable: %lu of %lu stable names died", (unsigned long)(before - sn_live),
                (unsigned long)before);
    sn_hash_rebuild();
}

void stable_name_update(void (*f)(void *ctx, StgClosure **slot), void *ctx)
{
    if (sn_live == 0)
        return;
    for (StgWord i = 0; i < sn_size; i++) {
        SnEntry *e = &names[i];
        if (!e->sn_obj)
            continue;
        f(ctx, (StgClosure **)&e->sn_obj);
        if (e->addr)
            f(ctx, &e->addr);
    }
    sn_hash_rebuild();
}

StgWord stable_name_count(void)
{
    return sn_live;
}

void stable_init(void)
{
    stable_ptrs = NULL;
    sp_size = sp_live = sp_free = 0;
    names = NULL;
    sn_size = sn_live = n_sn_free = 0;
    sn_free_list = NULL;
    sn_keys = sn_vals = NULL;
    sn_hash_cap = 0;
}

void stable_exit(void)
{
    free(stable_ptrs);
    free(names);
    free(sn_free_list);
    free(sn_keys);
    free(sn_vals);
    stable_init();
}
