/*
 * rts/trace in-process: the heap census against a heap whose contents the
 * test knows, the band labels of -hT / -hi / -L, and the event log's binary
 * layout read back by a small independent decoder (header table, blocks,
 * sizes, order), through a writer that keeps the bytes in memory. The
 * Haskell ghc-events reader checks real runs (t_trace_ghc_events.sh).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Rts.h"
#include "flags/flags.h"
#include "eventlog_decode.h"
#include "mutator.h"
#include "sm/nonmoving.h"
#include "test_util.h"
#include "trace/debug_trace.h"
#include "trace/heap_prof.h"

static const StgInfoTable cell_info = HS_CONSTR_INFO(0, 2, 1, "test:Cell");
static const StgInfoTable nil_info = {.type = CONSTR_STATIC, .name = "test:Nil"};
static const StgClosure nil = {.info = &nil_info};
static StgClosure *entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)cap;
    (void)fv;
    return self;
}
static const StgInfoTable named_thunk = HS_THUNK_INFO(entry, 0, 1, "test:myThunk");
static const StgInfoTable unnamed_thunk = HS_THUNK_INFO(entry, 0, 1, NULL);

static uint64_t band_bytes(const char *label)
{
    const HpBand *b;
    uint32_t n;
    trace_hp_census(&b, &n);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(b[i].label, label) == 0)
            return b[i].bytes;
    return 0;
}

/* The .hp file a test's runtime wrote (its -po stem is the last option). */
static void remove_hp(const char *opts)
{
    char name[128];
    snprintf(name, sizeof name, "%s.hp", strrchr(opts, ' ') + 4);
    ck_assert_int_eq(remove(name), 0);
}

/* A census after a major collection counts exactly the kept cells. */
START_TEST(census_counts_live_objects)
{
    char opts[96];
    snprintf(opts, sizeof opts, "-hT -i1000 -po%s/check_trace.%d", P_tmpdir, (int)getpid());
    test_start_rts("check_trace", opts, 1);
    Capability *cap = rts_lock();
    StgClosure **roots = rts_push_roots(cap, 1);
    roots[0] = (StgClosure *)&nil;
    TestRng rng;
    rng_init(&rng, test_seed("census_counts_live_objects"));
    long kept = 1000 + (long)rng_below(&rng, 50000);
    for (long i = 0; i < kept + 200000; i++) {
        if (i == 200000)
            roots[0] = (StgClosure *)&nil; /* what came before dies */
        StgClosure *c = (StgClosure *)rts_alloc(cap, 4);
        c->info = &cell_info;
        c->payload[0] = (StgClosure *)&nil;
        c->payload[1] = roots[0];
        c->payload[2] = (StgClosure *)(StgWord)i;
        roots[0] = c;
    }
    performMajorGC();
    ck_assert_uint_eq(band_bytes("test:Cell"), (uint64_t)kept * 4 * sizeof(StgWord));
    ck_assert_uint_gt(band_bytes("STACK"), 0);
    ck_assert_uint_eq(band_bytes("TSO"), sizeof(StgTSO));
    roots[0] = (StgClosure *)&nil;
    performMajorGC();
    ck_assert_uint_eq(band_bytes("test:Cell"), 0);
    rts_pop_roots(cap, roots);
    rts_unlock(cap);
    hs_exit();
    remove_hp(opts);
}
END_TEST

START_TEST(labels)
{
    flags_init_defaults();
    rts_flags.prof.heap_prof = HEAP_PROF_CLOSURE_TYPE;
    ck_assert_str_eq(trace_hp_label_of(&cell_info), "test:Cell");
    ck_assert_str_eq(trace_hp_label_of(&named_thunk), "THUNK");
    ck_assert_str_eq(trace_hp_label_of(&unnamed_thunk), "THUNK");
    rts_flags.prof.heap_prof = HEAP_PROF_INFO_TABLE;
    ck_assert_str_eq(trace_hp_label_of(&cell_info), "test:Cell");
    ck_assert_str_eq(trace_hp_label_of(&named_thunk), "test:myThunk");
    char addr[32];
    snprintf(addr, sizeof addr, "%p", (const void *)&unnamed_thunk);
    ck_assert_str_eq(trace_hp_label_of(&unnamed_thunk), addr);
}
END_TEST

/* -L and control characters: the census's bands, after a run with -hi -L6. */
static const StgInfoTable odd_info = HS_CONSTR_INFO(0, 0, 1, "a\tb\nc:Long.Name");
START_TEST(labels_cut_and_cleaned)
{
    char opts[96];
    snprintf(opts, sizeof opts, "-hi -L6 -i1000 -po%s/check_trace.%d", P_tmpdir, (int)getpid());
    test_start_rts("check_trace", opts, 0);
    Capability *cap = rts_lock();
    StgClosure **roots = rts_push_roots(cap, 1);
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &odd_info;
    c->payload[0] = (StgClosure *)(StgWord)7;
    roots[0] = c;
    performMajorGC();
    ck_assert_uint_eq(band_bytes("a?b?c:"), 2 * sizeof(StgWord));
    rts_pop_roots(cap, roots);
    rts_unlock(cap);
    hs_exit();
    remove_hp(opts);
}
END_TEST

START_TEST(debug_trace_is_free_when_off)
{
    flags_init_defaults();
    int evaluated = 0;
    DEBUG_TRACE(gc, "never printed %d", evaluated++);
    ck_assert_int_eq(evaluated, 0);
}
END_TEST

/* --- the event log through a memory writer --------------------------------------- */

static uint8_t *mem;
static size_t mem_len, mem_cap;
static int mem_inits, mem_stops, mem_flushes;
static void mem_init(void)
{
    mem_inits++;
}
static bool mem_write(void *p, size_t n)
{
    if (mem_len + n > mem_cap) {
        mem_cap = (mem_len + n) * 2;
        mem = realloc(mem, mem_cap);
    }
    memcpy(mem + mem_len, p, n);
    mem_len += n;
    return true;
}
static void mem_flush(void)
{
    mem_flushes++;
}
static void mem_stop(void)
{
    mem_stops++;
}
static const EventLogWriter mem_writer = {mem_init, mem_write, mem_flush, mem_stop};

START_TEST(eventlog_layout)
{
    mem_len = 0;
    mem_inits = mem_stops = mem_flushes = 0;
    test_start_rts("check_trace", "", 0);
    ck_assert_int_eq(eventLogStatus(), EVENTLOG_NOT_CONFIGURED);
    ck_assert(startEventLogging(&mem_writer));
    ck_assert(!startEventLogging(&mem_writer));
    ck_assert_int_eq(rts_isTracing(), 1);
    Capability *cap = rts_lock();
    for (int i = 0; i < 5; i++) {
        char msg[32];
        snprintf(msg, sizeof msg, "message %d", i);
        rts_traceEvent(cap, msg);
        performGC();
    }
    rts_traceEvent(NULL, "from no capability");
    rts_unlock(cap);
    endEventLogging();
    ck_assert_int_eq(eventLogStatus(), EVENTLOG_NOT_CONFIGURED);
    ck_assert_int_eq(mem_inits, 1);
    ck_assert_int_eq(mem_stops, 1);
    ck_assert_int_ge(mem_flushes, 1);
    Decoded d;
    eventlog_decode(mem, mem_len, &d);
    ck_assert(d.ended);
    ck_assert(d.blocks_ok);
    ck_assert(d.time_order_ok);
    ck_assert_int_ge(d.n_types, 30);
    ck_assert_int_ge(d.n_blocks, 2);
    ck_assert_int_ge(d.n_events, 5 * 8);
    ck_assert_int_eq(d.n_user, 6);
    ck_assert_str_eq(d.user[0], "message 0");
    ck_assert_str_eq(d.user[4], "message 4");
    ck_assert_str_eq(d.user[5], "from no capability");
    hs_exit();
    free(mem);
    mem = NULL;
    mem_cap = 0;
}
END_TEST

/*
 * -xn -l -ln: the nonmoving phases pair up (one mark and one sweep per major
 * collection, in the pause in the vanilla way), and the census events of
 * the last sweep are the heap's census itself, class by class.
 */
START_TEST(nonmoving_events)
{
    char path[] = "/tmp/hsrts-check-trace-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    char opts[128];
    snprintf(opts, sizeof opts, "-xn -l -ln -ol%s", path);
    test_start_rts("check_trace", opts, 0);
    Capability *cap = rts_lock();
    Mutator m;
    mutator_init(&m, cap, 7);
    int majors = 0;
    for (int i = 0; i < 24; i++) {
        mutator_step(&m, 200);
        if (i % 4 == 3) {
            performMajorGC();
            majors++;
        } else {
            performGC();
        }
    }
    nm_wait_mark_dry();
    performMajorGC(); /* the last sweep done before the census is read (threaded way) */
    majors++;
    uint32_t n = nm_n_classes();
    NmClassCensus *want = calloc(n, sizeof *want);
    for (uint32_t c = 0; c < n; c++)
        nm_class_census(c, &want[c]);
    uint32_t cycles = (uint32_t)nm_cycles();
    mutator_done(&m);
    rts_unlock(cap);
    hs_exit();

    mem = eventlog_take_file(path, &mem_len);
    Decoded *d = malloc(sizeof *d);
    eventlog_decode(mem, mem_len, d);
    ck_assert(d->ended && d->blocks_ok);
    for (int t = 200; t <= 207; t++)
        ck_assert_msg(d->sizes[t] >= 0, "event type %d not in the header", t);
    ck_assert_int_eq(d->sizes[207], 14);
    /* Marks: at least one per requested major collection; sweeps as many. */
    ck_assert_int_ge(d->n_of[201], majors);
    ck_assert_int_eq(d->n_of[200], d->n_of[201]);
    ck_assert_int_eq(d->n_of[204], d->n_of[201]);
    ck_assert_int_eq(d->n_of[205], d->n_of[204]);
#ifdef THREADED_RTS
    ck_assert_int_eq(d->n_of[202], d->n_of[203]);
    ck_assert_int_ge((int)cycles, 1);
#else
    ck_assert_int_eq(d->n_of[202], 0); /* no concurrent mark, no sync */
    (void)cycles;
#endif
    ck_assert(d->census_sizes_ok);
    /*
     * One sweep's census events are the heap's census after the last requested
     * collection (the exit's collection may sweep again, after the program let its
     * graph go): every class in use, with its figures, and no other.
     */
    int classes = 0;
    for (uint32_t c = 0; c < n; c++)
        classes += want[c].segments > 0;
    ck_assert_int_gt(classes, 1);
    bool found = false;
    for (int sweep = 0; sweep <= d->n_of[205] && !found; sweep++) {
        int in_sweep = 0, matching = 0;
        for (int e = 0; e < d->n_census; e++) {
            if (d->census[e].sweep != sweep)
                continue;
            in_sweep++;
            for (uint32_t c = 0; c < n; c++)
                if (want[c].segments > 0 && want[c].slot_words == d->census[e].words &&
                    d->census[e].v[0] == want[c].segments - want[c].filled &&
                    d->census[e].v[1] == want[c].filled && d->census[e].v[2] == want[c].live_slots)
                    matching++;
        }
        found = in_sweep == classes && matching == classes;
    }
    if (!found && getenv("HSRTS_TEST_VERBOSE")) {
        for (uint32_t c = 0; c < n; c++)
            if (want[c].segments)
                fprintf(stderr, "census %lu words: %lu %lu %lu\n",
                        (unsigned long)want[c].slot_words,
                        (unsigned long)(want[c].segments - want[c].filled),
                        (unsigned long)want[c].filled, (unsigned long)want[c].live_slots);
        for (int e = 0; e < d->n_census; e++)
            fprintf(stderr, "sweep %d: %u words: %u %u %u\n", d->census[e].sweep,
                    d->census[e].words, d->census[e].v[0], d->census[e].v[1], d->census[e].v[2]);
    }
    ck_assert_msg(found, "no sweep's census events match the census (%d events, %d sweeps)",
                  d->n_census, d->n_of[205]);
    free(want);
    free(d);
    free(mem);
    mem = NULL;
    mem_cap = mem_len = 0;
}
END_TEST

/* A program that never starts the log: events cost nothing and go nowhere. */
START_TEST(events_without_a_log)
{
    test_start_rts("check_trace", "", 0);
    Capability *cap = rts_lock();
    ck_assert_int_eq(rts_isTracing(), 0);
    rts_traceEvent(cap, "dropped");
    rts_traceMarker(cap, "dropped");
    rts_traceBinaryEvent(cap, (const uint8_t *)"x", 1);
    flushEventLog(&cap);
    endEventLogging();
    rts_unlock(cap);
    hs_exit();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("trace");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, census_counts_live_objects);
    tcase_add_test(tc, labels);
    tcase_add_test(tc, labels_cut_and_cleaned);
    tcase_add_test(tc, debug_trace_is_free_when_off);
    tcase_add_test(tc, eventlog_layout);
    tcase_add_test(tc, events_without_a_log);
    tcase_add_test(tc, nonmoving_events);
    suite_add_tcase(s, tc);
    return test_run(s);
}
