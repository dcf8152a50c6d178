/*
 * TEMPORARY minimal option reader, to be replaced (not kept beside) by the
 * table-driven option system of issue #4. Handles defaults and a few GC
 * flags between +RTS and -RTS only.
 */
#include <stdlib.h>
#include <string.h>

#include "flags/flags.h"
#include "messages.h"

RtsFlags rts_flags;

void flags_init_defaults(void)
{
    memset(&rts_flags, 0, sizeof rts_flags);
    GcFlags *g = &rts_flags.gc;
    g->alloc_area_bytes = 4u << 20;
    g->min_old_gen_bytes = 1u << 20;
    g->old_gen_factor = 2.0;
    g->return_decay_factor = 4.0;
    g->generations = 2;
    g->heap_overflow_grace_bytes = 1u << 20;
    g->pc_free_heap = 3.0;
    g->compact_threshold = 30.0;
    g->nonmoving_dense_allocator_count = 16;
    g->max_stack_bytes = 8u << 20;
    g->init_stack_bytes = 1024;
    g->stack_chunk_bytes = 32 * 1024;
    g->stack_chunk_buffer_bytes = 1024;
    g->squeeze_update_frames = true;
    g->address_space_bytes = (uint64_t)1 << 40;
    g->alloc_limit_grace_bytes = 100 * 1024;
    g->numa_mask = ~(uint64_t)0;
    rts_flags.misc.tick_interval = 0.01;
    rts_flags.misc.ctxt_switch_time = 0.02;
    rts_flags.prof.heap_prof_interval = 0.1;
}

static uint64_t size_arg(const char *s)
{
    char *end;
    double d = strtod(s, &end);
    switch (*end) {
    case 'k': case 'K': d *= 1024; break;
    case 'm': case 'M': d *= 1024 * 1024; break;
    case 'g': case 'G': d *= 1024.0 * 1024 * 1024; break;
    default: break;
    }
    return (uint64_t)d;
}

void flags_setup(int *argc, char ***argv, const RtsConfig *config)
{
    flags_init_defaults();
    if (config && config->defaultsHook)
        config->defaultsHook();
    int out = 1;
    bool rts = false;
    for (int i = 1; i < *argc; i++) {
        char *a = (*argv)[i];
        if (strcmp(a, "+RTS") == 0) { rts = true; continue; }
        if (strcmp(a, "-RTS") == 0) { rts = false; continue; }
        if (!rts) { (*argv)[out++] = a; continue; }
        GcFlags *g = &rts_flags.gc;
        if (strncmp(a, "-A", 2) == 0) g->alloc_area_bytes = size_arg(a + 2);
        else if (strncmp(a, "-G", 2) == 0) g->generations = (uint32_t)atoi(a + 2);
        else if (strncmp(a, "-n", 2) == 0) g->nursery_chunk_bytes = size_arg(a + 2);
        else if (strncmp(a, "-H", 2) == 0) g->heap_size_suggestion_bytes = size_arg(a + 2);
        else if (strncmp(a, "-M", 2) == 0) g->max_heap_bytes = size_arg(a + 2);
        else if (strncmp(a, "-O", 2) == 0) g->min_old_gen_bytes = size_arg(a + 2);
        else if (strcmp(a, "-DS") == 0) rts_flags.debug.sanity = true;
        else if (strcmp(a, "-s") == 0) rts_flags.stats.level = STATS_SUMMARY;
        else if (strcmp(a, "-S") == 0) rts_flags.stats.level = STATS_VERBOSE;
        else msg_fatal(1, "unknown RTS option: %s", a);
    }
    (*argv)[out] = NULL;
    *argc = out;
    if (rts_flags.gc.alloc_area_bytes >= (16u << 20))
        rts_flags.gc.nursery_chunk_bytes = 4u << 20;
}
