/*
 * Derived values and cross-checks, applied once after every source has been
 * processed (GHC's normaliseRtsOpts; §2.4 of the interface reference).
 *
 * Where GHC barfs (an internal error and abort()) on a bad combination,
 * hsrts reports a one-line error like any other bad option: the user gave
 * the combination, so it is bad input, not a runtime bug.
 */
#include <inttypes.h>

#include "flags/flags_internal.h"

#define MiB ((uint64_t)1 << 20)

/*
 * Note [Tick interval]
 * ~~~~~~~~~~~~~~~~~~~~
 * One timer (-V) drives context switches (-C), idle GC (-I) and heap
 * profile samples (-i), so it must tick at least as often as the shortest
 * of them. -V0 turns the timer off and with it everything it drives.
 */
static void derive_tick(RtsFlags *f)
{
    double *tick = &f->misc.tick_interval;
    if (*tick <= 0) {
        *tick = 0;
        f->misc.ctxt_switch_time = 0;
        f->gc.idle_gc_delay = 0;
        f->gc.do_idle_gc = false;
        f->prof.heap_prof_interval = 0;
        return;
    }
    const double drivers[] = {f->misc.ctxt_switch_time, f->gc.do_idle_gc ? f->gc.idle_gc_delay : 0,
                              f->prof.heap_prof_interval};
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++)
        if (drivers[i] > 0 && drivers[i] < *tick)
            *tick = drivers[i];
}

static void check_heap_sizes(FlagsParse *p)
{
    GcFlags *g = &p->flags->gc;
    if (g->max_heap_bytes != 0 && g->heap_size_suggestion_bytes > g->max_heap_bytes) {
        flags_msg(p, FLAGS_MSG_WARNING,
                  "Maximum heap size (-M) is smaller than suggested heap size (-H); setting the "
                  "maximum heap size to %" PRIu64 " bytes",
                  g->heap_size_suggestion_bytes);
        g->max_heap_bytes = g->heap_size_suggestion_bytes;
    }
    if (g->max_heap_bytes != 0 && g->alloc_area_bytes > g->max_heap_bytes) {
        /* An allocation area must hold two blocks; below that no -A fits. */
        if (g->max_heap_bytes < 2 * BLOCK_SIZE) {
            flags_msg(p, FLAGS_MSG_ERROR,
                      "maximum heap size (-M) of %" PRIu64
                      " bytes is too small for any allocation area (-A, at least %u bytes)",
                      g->max_heap_bytes, (unsigned)(2 * BLOCK_SIZE));
            return;
        }
        /* GHC's words exactly; -A becomes -M, and the program runs as under GHC. */
        flags_msg(p, FLAGS_MSG_WARNING,
                  "maximum heap size (-M) is smaller than minimum alloc area size (-A)");
        g->alloc_area_bytes = g->max_heap_bytes;
    }
}

void flags_normalise(FlagsParse *p)
{
    RtsFlags *f = p->flags;
    GcFlags *g = &f->gc;

    derive_tick(f);

    if (g->stack_chunk_buffer_bytes > g->stack_chunk_bytes / 2)
        flags_msg(p, FLAGS_MSG_ERROR,
                  "stack chunk buffer size (-kb) must be at most half the stack chunk size "
                  "(-kc): %" PRIu64 " > %" PRIu64 " / 2",
                  g->stack_chunk_buffer_bytes, g->stack_chunk_bytes);

    check_heap_sizes(p);

    /* Big allocation areas are handed out in chunks so that fast allocators
     * get more of them (GHC's rule, applied whatever -n said). */
    if (g->alloc_area_bytes >= 16 * MiB)
        g->nursery_chunk_bytes = 4 * MiB;

    if (g->large_alloc_lim_bytes == 0)
        g->large_alloc_lim_bytes = g->alloc_area_bytes;

    if (!f->par.load_balance_set)
        f->par.load_balance_gen = g->alloc_area_bytes >= 32 * MiB ? 0 : 1;

    if (f->par.gc_threads > f->par.n_capabilities)
        flags_msg(p, FLAGS_MSG_ERROR,
                  "the number of GC threads (-qn%" PRIu32
                  ") must not exceed the number of capabilities (-N%" PRIu32 ")",
                  f->par.gc_threads, f->par.n_capabilities);

    if (g->nonmoving && g->generations == 1)
        flags_msg(p, FLAGS_MSG_ERROR,
                  "the non-moving collector (--nonmoving-gc, -xn) needs at least two "
                  "generations: it cannot be used with -G1");
    if (g->nonmoving && g->compact)
        flags_msg(p, FLAGS_MSG_ERROR,
                  "the non-moving collector (--nonmoving-gc, -xn) cannot be used together with "
                  "the compacting collector (-c)");
    if (g->sweep && g->compact)
        flags_msg(p, FLAGS_MSG_ERROR,
                  "the mark-region collector (-w) and the compacting collector (-c) cannot be "
                  "used together: choose one");
    if (g->sweep && g->nonmoving)
        flags_msg(p, FLAGS_MSG_ERROR,
                  "the mark-region collector (-w) cannot be used together with the non-moving "
                  "collector (--nonmoving-gc, -xn)");
    if (g->sweep && f->prof.heap_prof != HEAP_PROF_NONE)
        flags_msg(p, FLAGS_MSG_ERROR,
                  "the mark-region collector (-w) cannot be used with heap profiling (-hT, -hi)");

    /* GC events need the GC statistics, as -T collects them. */
    if ((f->trace.eventlog || f->trace.trace_stderr) && f->trace.gc && f->stats.level == STATS_NONE)
        f->stats.level = STATS_COLLECT;
}
