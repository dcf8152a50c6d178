/*
 * Heap profiles. See heap_prof.h.
 *
 * State: the .hp file, the band table and the census clock. All of it is
 * touched only by the collector's thread right after a major collection,
 * at start-up and at exit (one collection at a time), and by the
 * request/timer calls, which only set flags.
 *
 * Note [When the census runs]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A census counts the objects of a heap that holds only live data: right
 * after a major collection (after a minor one the old generations still
 * hold the garbage of their last cycle). GHC forces a major collection
 * every -i seconds. hsrts asks at the start of every collection
 * (trace_heap_census_due) and takes a census after every major one that
 * comes at least -i/2 of mutator time after the last census: collections
 * the program's own allocation brings about cost the census nothing but
 * the heap walk. A collection is made major for a census only when none
 * came for FORCE_INTERVALS intervals. Where the old generation is not
 * growing there are few natural major collections, but then the live heap
 * changes slowly too, so sparser samples lose little; where it grows,
 * natural ones come often. Forcing one at every -i, as GHC does, made
 * binary-trees (depth 21, -i0.1) copy its 100 MB long-lived tree every
 * 0.1 s of mutator time, about a quarter slower in all (bench/README.md).
 * Samples are therefore irregular: -i/2 to FORCE_INTERVALS * -i apart,
 * plus the time to the next collection; hp2ps and the report do not need
 * them regular.
 * -i0 makes every collection a major one with a census, as GHC's -i0; a
 * census requested with requestHeapCensus() is taken at the next
 * collection (made major); --no-automatic-heap-samples / stopHeapProfTimer
 * leave only requested ones.
 *
 * The census runs inside the collection, before its statistics: its time
 * is GC time (as GHC's), not mutator time, so it does not advance the -i
 * clock, and a sample is stamped with the mutator time at the start of its
 * collection (GHC's BEGIN_SAMPLE time).
 *
 * Note [Bands]
 * ~~~~~~~~~~~~
 * -hT: a constructor (CONSTR) is counted under its info table's `name`
 * (the compiler's "pkg:Module.Con", as GHC's -hT uses the constructor
 * description); every other object under its closure type's GHC name
 * (layout_type_name). -hi: under the info table's `name` for every type,
 * so a compiler that names its thunks and functions shows its users their
 * own names; an info table without a name is shown by its address, as
 * GHC's -hi shows every table. No new info-table field was needed: the
 * `name` field already carries the description. Tables with equal names
 * share a band. Labels are cut to -L characters, and a tab, newline or
 * other control byte in one becomes '?' so that the .hp lines stay
 * "<label>\t<bytes>".
 */
#include "trace/heap_prof.h"

#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"
#include "sm/layout.h"
#include "sm/policy.h"
#include "sm/storage.h"
#include "trace/debug_trace.h"
#include "trace/eventlog.h"

/* Intervals without a census after which a collection is made major for one. */
#define FORCE_INTERVALS 4.0

static FILE *hp_file;
static bool profiling;         /* -hT or -hi, and the file is open */
static bool automatic;         /* the -i clock runs */
static bool requested;         /* requestHeapCensus() */
static double last_census_mut; /* mutator seconds at the last census */
static double gc_start_mut;    /* mutator seconds when the current collection started */
static uint64_t era;           /* censuses so far (the event log's sample number) */

/* Bands: labels in order of first appearance; bytes of the current census. */
static HpBand *bands;
static uint32_t n_bands, cap_bands;

/* Info table -> band, open addressing; grows at half full. */
typedef struct {
    const StgInfoTable *info;
    uint32_t band;
} InfoSlot;
static InfoSlot *slots;
static uint32_t n_slots, used_slots;

static double mutator_seconds(void)
{
    RTSStats s;
    getRTSStats(&s);
    return (double)s.mutator_cpu_ns / 1e9;
}

/* --- labels and bands ----------------------------------------------------------- */

static char *clean_label(const char *raw)
{
    size_t n = strlen(raw);
    uint32_t limit = rts_flags.prof.label_length;
    if (limit && n > limit)
        n = limit;
    char *s = hooks_malloc(n + 1, "heap profile label");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)raw[i];
        s[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    s[n] = '\0';
    return s;
}

const char *trace_hp_label_of(const StgInfoTable *info)
{
    static char addr[2 + 2 * sizeof(void *) + 1];
    if (rts_flags.prof.heap_prof == HEAP_PROF_INFO_TABLE || info->type == CONSTR ||
        info->type == CONSTR_STATIC) {
        if (info->name && info->name[0])
            return info->name;
        if (rts_flags.prof.heap_prof == HEAP_PROF_INFO_TABLE) {
            snprintf(addr, sizeof addr, "%p", (const void *)info);
            return addr;
        }
    }
    return layout_type_name(info->type);
}

static uint32_t band_for_label(const char *raw)
{
    char *label = clean_label(raw);
    for (uint32_t i = 0; i < n_bands; i++) {
        if (strcmp(bands[i].label, label) == 0) {
            free(label);
            return i;
        }
    }
    if (n_bands == cap_bands) {
        cap_bands = cap_bands ? cap_bands * 2 : 64;
        bands = hooks_realloc(bands, cap_bands * sizeof(HpBand), "heap profile bands");
    }
    bands[n_bands] = (HpBand){.label = label, .bytes = 0};
    return n_bands++;
}

static uint32_t slot_index(const StgInfoTable *info)
{
    return (uint32_t)((((uintptr_t)info >> 3) * 0x9E3779B97F4A7C15ull) >> 32) & (n_slots - 1);
}

static void slots_grow(void)
{
    InfoSlot *old = slots;
    uint32_t old_n = n_slots;
    n_slots = n_slots ? n_slots * 2 : 256;
    slots = hooks_calloc(n_slots, sizeof(InfoSlot), "heap profile table");
    for (uint32_t i = 0; i < old_n; i++) {
        if (old[i].info) {
            uint32_t j = slot_index(old[i].info);
            while (slots[j].info)
                j = (j + 1) & (n_slots - 1);
            slots[j] = old[i];
        }
    }
    free(old);
}

static uint32_t band_of(const StgInfoTable *info)
{
    uint32_t i = slot_index(info);
    while (slots[i].info) {
        if (slots[i].info == info)
            return slots[i].band;
        i = (i + 1) & (n_slots - 1);
    }
    uint32_t band = band_for_label(trace_hp_label_of(info));
    if (2 * (used_slots + 1) > n_slots) {
        slots_grow();
        i = slot_index(info);
        while (slots[i].info)
            i = (i + 1) & (n_slots - 1);
    }
    slots[i] = (InfoSlot){.info = info, .band = band};
    used_slots++;
    return band;
}

/* --- the census ------------------------------------------------------------------- */

/* Types whose size is in the info table: for them the walk skips layout_of. */
static bool fixed_size_type(uint32_t type)
{
    return type == CONSTR || type == FUN || type == THUNK;
}

/*
 * [p, end): objects separated by zero slop (Note [Heap walkability] in
 * sm/layout.h). Runs of objects with the same info table (a tree of one
 * constructor, a list) are summed locally and added to their band once:
 * the walk is bound by reading the heap, not by finding bands.
 */
static void census_words(StgPtr p, StgPtr end)
{
    const StgInfoTable *last = NULL;
    uint32_t band = 0;
    StgWord fixed = 0, run = 0;
    while (p < end) {
        if (*p == 0) {
            p++;
            continue;
        }
        const StgClosure *q = (const StgClosure *)p;
        const StgInfoTable *info = q->info;
        if (info != last) {
            if (last)
                bands[band].bytes += run * sizeof(StgWord);
            run = 0;
            band = band_of(info); /* may grow `bands`: nothing holds a pointer into it */
            last = info;
            fixed = fixed_size_type(info->type) ? layout_of(q, info).size : 0;
        }
        StgWord size = fixed ? fixed : layout_of(q, info).size;
        if (RTS_UNLIKELY(size == 0 || p + size > end))
            msg_barf("heap census: object %p (info %p) has no valid layout", (const void *)p,
                     (const void *)info);
        run += size;
        p += size;
    }
    if (last)
        bands[band].bytes += run * sizeof(StgWord);
}

/* One object of a generation that is not a walkable block list (the nonmoving segments). */
static void census_one(StgClosure *q, void *ctx)
{
    (void)ctx;
    uint32_t band = band_of(q->info); /* may grow `bands`: index it after */
    bands[band].bytes += layout_of(q, q->info).size * sizeof(StgWord);
}

void trace_hp_census(const HpBand **out, uint32_t *n_out)
{
    if (n_slots == 0)
        slots_grow();
    for (uint32_t i = 0; i < n_bands; i++)
        bands[i].bytes = 0;
    for (uint32_t g = 0; g < n_generations; g++) {
        if (generations[g].policy == &gen_policy_nonmoving) {
            /* Slots, listed by their epoch bytes (Note [Nonmoving segments]); large objects too. */
            generations[g].policy->walk(&generations[g], census_one, NULL);
            continue;
        }
        for (bdescr *bd = generations[g].blocks; bd; bd = bd->link)
            census_words(bd->start, bd->free);
        for (bdescr *bd = generations[g].large_objects; bd; bd = bd->link)
            census_words(bd->start, bd->free);
    }
    *out = bands;
    *n_out = n_bands;
}

/* --- the .hp file ------------------------------------------------------------------- */

/*
 * A sample's time, as written: hp2ps rejects a sample that is not later
 * than the one before ("samples out of sequence"), and the census of the
 * collection at hs_exit and the closing sample can fall in the same
 * microsecond of mutator time.
 */
static double last_written;
static double sample_time(double t)
{
    if (t < last_written + 1e-6)
        t = last_written + 1e-6;
    last_written = t;
    return t;
}

static void write_sample(double t, const HpBand *b, uint32_t n)
{
    t = sample_time(t);
    fprintf(hp_file, "BEGIN_SAMPLE %f\n", t);
    /* Newest band first, as GHC lists its buckets. */
    for (uint32_t i = n; i-- > 0;)
        if (b[i].bytes)
            fprintf(hp_file, "%s\t%llu\n", b[i].label, (unsigned long long)b[i].bytes);
    fprintf(hp_file, "END_SAMPLE %f\n", t);
    fflush(hp_file);
}

static void post_sample_events(const HpBand *b, uint32_t n)
{
    if (!trace_ev_running())
        return;
    EventBuf *e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_HEAP_PROF_SAMPLE_BEGIN, trace_ev_now(), 0);
    trace_ev_put64(e, era);
    trace_ev_end(e);
    for (uint32_t i = n; i-- > 0;) {
        if (!b[i].bytes)
            continue;
        size_t len = strlen(b[i].label) + 1;
        e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_HEAP_PROF_SAMPLE_STRING, trace_ev_now(),
                           1 + 8 + len);
        trace_ev_put8(e, 0); /* profile 0 */
        trace_ev_put64(e, b[i].bytes);
        trace_ev_put_bytes(e, b[i].label, len);
        trace_ev_end(e);
    }
    e = trace_ev_begin(EVENTLOG_GLOBAL, EVENT_HEAP_PROF_SAMPLE_END, trace_ev_now(), 0);
    trace_ev_put64(e, era);
    trace_ev_end(e);
}

void trace_hp_post_begin_event(void)
{
    if (!profiling || !trace_ev_running())
        return;
    /*
     * id, sampling period (ns), breakdown, 7 empty filters. The breakdown is
     * GHC's HEAP_BY_CLOSURE_TYPE (8) for -hT; for -hi it is HEAP_BY_DESCR
     * (4, "closure description"): the bands are info tables' descriptions,
     * not the addresses GHC's HEAP_BY_INFO_TABLE (9) implies, and readers
     * older than GHC 9.2's (Debian's ghc-events 0.17) reject 9.
     */
    EventBuf *e =
        trace_ev_begin(EVENTLOG_GLOBAL, EVENT_HEAP_PROF_BEGIN, trace_ev_now(), 1 + 8 + 4 + 7);
    trace_ev_put8(e, 0);
    trace_ev_put64(e, (uint64_t)(rts_flags.prof.heap_prof_interval * 1e9));
    trace_ev_put32(e, rts_flags.prof.heap_prof == HEAP_PROF_INFO_TABLE ? 4 : 8);
    for (int i = 0; i < 7; i++)
        trace_ev_put8(e, 0);
    trace_ev_end(e);
}

static char *hp_file_name(void)
{
    const char *stem = rts_flags.prof.hp_stem ? rts_flags.prof.hp_stem : msg_prog_name();
    size_t n = strlen(stem) + 4;
    char *name = hooks_malloc(n, "heap profile file name");
    snprintf(name, n, "%s.hp", stem);
    return name;
}

/* "JOB" text: the program name, with '"' doubled as GHC writes it. */
static void write_quoted(const char *s)
{
    fputc('"', hp_file);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', hp_file);
        fputc(*s, hp_file);
    }
    fputc('"', hp_file);
}

void trace_hp_init(void)
{
    profiling = false;
    if (rts_flags.prof.heap_prof == HEAP_PROF_NONE)
        return;
    char *name = hp_file_name();
    hp_file = fopen(name, "w+");
    if (hp_file == NULL) {
        int saved = errno;
        /* GHC's words; see rts/trace/README.md for why hsrts stops here. */
        msg_error("Can't open profiling report file %s: %s", name, strerror(saved));
        free(name);
        msg_exit(EXIT_BADFLAGS);
    }
    free(name);
    /* The %f below must print a '.', whatever locale the program set. */
    locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t saved_locale = c_locale ? uselocale(c_locale) : (locale_t)0;
    time_t now = time(NULL);
    char date[64];
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%a %b %e %H:%M %Y", &tm);
    fputs("JOB ", hp_file);
    write_quoted(msg_prog_name());
    fprintf(hp_file, "\nDATE \"%s\"\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n", date);
    fprintf(hp_file, "BEGIN_SAMPLE %f\nEND_SAMPLE %f\n", 0.0, 0.0);
    fflush(hp_file);
    if (c_locale) {
        uselocale(saved_locale);
        freelocale(c_locale);
    }
    profiling = true;
    automatic = rts_flags.prof.automatic_heap_samples;
    requested = false;
    last_census_mut = 0;
    last_written = 0;
    era = 0;
    trace_hp_post_begin_event();
}

void trace_hp_gc_start(void)
{
    if (profiling)
        gc_start_mut = mutator_seconds();
}

bool trace_hp_census_due(void)
{
    if (!profiling)
        return false;
    if (requested)
        return true;
    if (!automatic)
        return false;
    double interval = rts_flags.prof.heap_prof_interval;
    if (interval <= 0)
        return true;
    double since = gc_start_mut - last_census_mut;
    return since >= FORCE_INTERVALS * interval;
}

void trace_hp_census_after_gc(bool major)
{
    if (!profiling || !major)
        return;
    double now = gc_start_mut;
    double interval = rts_flags.prof.heap_prof_interval;
    bool due = requested || (automatic && (interval <= 0 || now - last_census_mut >= interval / 2));
    if (!due)
        return;
    requested = false;
    last_census_mut = now;
    era++;
    const HpBand *b;
    uint32_t n;
    trace_hp_census(&b, &n);
    locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t saved_locale = c_locale ? uselocale(c_locale) : (locale_t)0;
    write_sample(now, b, n);
    if (c_locale) {
        uselocale(saved_locale);
        freelocale(c_locale);
    }
    post_sample_events(b, n);
    DEBUG_TRACE(prof, "prof: census %llu at %.3fs of mutator time, %u bands",
                (unsigned long long)era, now, n);
}

void trace_hp_exit(void)
{
    if (!profiling)
        return;
    profiling = false;
    double t = mutator_seconds();
    locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t saved_locale = c_locale ? uselocale(c_locale) : (locale_t)0;
    t = sample_time(t);
    fprintf(hp_file, "BEGIN_SAMPLE %f\nEND_SAMPLE %f\n", t, t);
    if (c_locale) {
        uselocale(saved_locale);
        freelocale(c_locale);
    }
    fclose(hp_file);
    hp_file = NULL;
    for (uint32_t i = 0; i < n_bands; i++)
        free((char *)bands[i].label);
    free(bands);
    bands = NULL;
    n_bands = cap_bands = 0;
    free(slots);
    slots = NULL;
    n_slots = used_slots = 0;
}

/* --- the public controls (rts/Trace.h) --------------------------------------------- */

void requestHeapCensus(void)
{
    requested = true;
}

void startHeapProfTimer(void)
{
    automatic = true;
}

void stopHeapProfTimer(void)
{
    automatic = false;
}
