/*
 * The block allocator against a simple model: random allocations and frees
 * of groups of random sizes (single blocks to multi-megablock groups), with
 * no overlap, exact accounting, full coalescing, and bd_check() after every
 * step. Seeded: the seed is printed and HSRTS_TEST_SEED replays it.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flags/flags.h"
#include "os/os_mem.h"
#include "sm/block_alloc.h"
#include "sm/mblock.h"
#include "test_util.h"

#define MAX_LIVE 400

typedef struct {
    bdescr *bd;
    StgWord blocks;
    StgWord stamp;
} Live;

static Live live[MAX_LIVE];
static int n_live;

static void setup(void)
{
    flags_init_defaults();
    rts_flags.gc.address_space_bytes = (uint64_t)64 << 30;
    mblock_init();
    bd_init();
    n_live = 0;
}

static void teardown(void)
{
    bd_exit();
    mblock_exit();
}

/* A new heap, with huge pages asked for or not (--huge-pages). */
static void restart_heap(bool huge)
{
    teardown();
    rts_flags.gc.huge_pages = huge;
    mblock_init();
    bd_init();
}

static StgWord group_words(const bdescr *bd)
{
    return (StgWord)bd->blocks * BLOCK_SIZE_W;
}

/* Stamp the first and last word of a group; a neighbour overwriting it shows. */
static void stamp(Live *l)
{
    l->bd->start[0] = l->stamp;
    l->bd->start[group_words(l->bd) - 1] = ~l->stamp;
}

static void check_stamp(const Live *l)
{
    ck_assert_msg(l->bd->start[0] == l->stamp, "group %p: first word overwritten",
                  (void *)l->bd->start);
    ck_assert_msg(l->bd->start[group_words(l->bd) - 1] == ~l->stamp,
                  "group %p: last word overwritten", (void *)l->bd->start);
}

static void check_no_overlap(const Live *l)
{
    uintptr_t lo = (uintptr_t)l->bd->start, hi = lo + group_words(l->bd) * sizeof(StgWord);
    for (int i = 0; i < n_live; i++) {
        if (&live[i] == l)
            continue;
        uintptr_t a = (uintptr_t)live[i].bd->start;
        uintptr_t b = a + group_words(live[i].bd) * sizeof(StgWord);
        ck_assert_msg(hi <= a || b <= lo, "groups %p and %p overlap", (void *)lo, (void *)a);
    }
}

static StgWord model_blocks(void)
{
    StgWord n = 0;
    for (int i = 0; i < n_live; i++)
        n += live[i].blocks;
    return n;
}

static StgWord random_size(TestRng *r)
{
    uint64_t k = rng_below(r, 100);
    if (k < 60)
        return 1 + rng_below(r, 8);
    if (k < 90)
        return 1 + rng_below(r, BLOCKS_PER_MBLOCK - 1);
    if (k < 97)
        return BLOCKS_PER_MBLOCK + rng_below(r, 3 * BLOCKS_PER_MBLOCK_ALL);
    return 1 + rng_below(r, 64);
}

START_TEST(random_against_model)
{
    TestRng r;
    rng_init(&r, test_seed("block_alloc.random_against_model"));
    for (int step = 0; step < 20000; step++) {
        bool do_alloc = n_live == 0 || (n_live < MAX_LIVE && rng_below(&r, 100) < 55);
        if (do_alloc) {
            StgWord n = random_size(&r);
            Live *l = &live[n_live++];
            l->bd = bd_alloc_group(n);
            ck_assert_ptr_nonnull(l->bd);
            ck_assert_uint_ge(l->bd->blocks, n);
            if (n < BLOCKS_PER_MBLOCK)
                ck_assert_uint_eq(l->bd->blocks, n);
            ck_assert(l->bd->free == l->bd->start);
            ck_assert(Bdescr(l->bd->start) == l->bd);
            l->blocks = l->bd->blocks;
            l->stamp = rng_next(&r) | 1;
            check_no_overlap(l);
            stamp(l);
        } else {
            int i = (int)rng_below(&r, (uint64_t)n_live);
            check_stamp(&live[i]);
            bd_free_group(live[i].bd);
            live[i] = live[--n_live];
        }
        ck_assert_uint_eq(bd_n_alloc_blocks(), model_blocks());
        if (step % 64 == 0) {
            bd_check();
            for (int i = 0; i < n_live; i++)
                check_stamp(&live[i]);
        }
    }
    while (n_live > 0) {
        check_stamp(&live[n_live - 1]);
        bd_free_group(live[--n_live].bd);
    }
    bd_check();
    /* Everything coalesced back into whole megablocks and went back. */
    ck_assert_uint_eq(bd_n_alloc_blocks(), 0);
    ck_assert_uint_eq(bd_n_free_blocks(), 0);
    ck_assert_uint_eq(mblock_n_in_use(), 0);
}
END_TEST

START_TEST(single_blocks_coalesce_in_any_order)
{
    TestRng r;
    rng_init(&r, test_seed("block_alloc.single_blocks_coalesce"));
    static bdescr *blocks[BLOCKS_PER_MBLOCK];
    for (int i = 0; i < (int)BLOCKS_PER_MBLOCK; i++)
        blocks[i] = bd_alloc_block();
    ck_assert_uint_eq(mblock_n_in_use(), 1);
    ck_assert_uint_eq(bd_n_free_blocks(), 0);
    /* Shuffle, then free one by one: the free groups must stay coalesced. */
    for (int i = BLOCKS_PER_MBLOCK - 1; i > 0; i--) {
        int j = (int)rng_below(&r, (uint64_t)i + 1);
        bdescr *t = blocks[i];
        blocks[i] = blocks[j];
        blocks[j] = t;
    }
    for (int i = 0; i < (int)BLOCKS_PER_MBLOCK; i++) {
        bd_free_group(blocks[i]);
        bd_check();
    }
    ck_assert_uint_eq(mblock_n_in_use(), 0);
}
END_TEST

START_TEST(freed_neighbours_merge)
{
    /* Groups are cut from the end of a free group: [rest][keep][c][b][a]. */
    bdescr *a = bd_alloc_group(10), *b = bd_alloc_group(20), *c = bd_alloc_group(30);
    bdescr *keep = bd_alloc_group(1);
    ck_assert(c->start + 30 * BLOCK_SIZE_W == b->start && b->start + 20 * BLOCK_SIZE_W == a->start);
    StgWord before = bd_n_free_blocks();
    StgPtr c_start = c->start;
    bd_free_group(a);
    bd_free_group(c);
    bd_free_group(b); /* joins c, b and a into one group of 60 */
    bd_check();
    ck_assert_uint_eq(bd_n_free_blocks(), before + 60);
    bdescr *d = bd_alloc_group(60);
    ck_assert_ptr_eq(d->start, c_start);
    bd_free_group(d);
    bd_free_group(keep);
    bd_check();
    ck_assert_uint_eq(mblock_n_in_use(), 0);
}
END_TEST

#ifdef DEBUG
/* The debug way fills freed blocks with 0xaa; -DZ zeroes them instead. */
static bool filled_with(const bdescr *bd, StgPtr start, unsigned char byte)
{
    (void)bd;
    const unsigned char *p = (const unsigned char *)start;
    for (size_t i = 0; i < BLOCK_SIZE; i++)
        if (p[i] != byte)
            return false;
    return true;
}

START_TEST(freed_blocks_are_poisoned_or_zeroed)
{
    bdescr *keep = bd_alloc_group(1); /* the megablock stays in use */
    for (int zero = 0; zero <= 1; zero++) {
        rts_flags.debug.zero_on_gc = zero;
        bdescr *a = bd_alloc_group(1);
        StgPtr start = a->start;
        memset(start, 0x55, BLOCK_SIZE);
        bd_free_group(a);
        if (!filled_with(a, start, zero ? 0 : 0xaa))
            ck_abort_msg("a freed block is not filled with 0x%x (-DZ %s)", zero ? 0 : 0xaa,
                         zero ? "on" : "off");
    }
    rts_flags.debug.zero_on_gc = false;
    bd_free_group(keep);
}
END_TEST
#endif

START_TEST(megablock_groups_span_megablocks)
{
    StgWord n = 3 * BLOCKS_PER_MBLOCK_ALL;
    bdescr *bd = bd_alloc_group(n);
    ck_assert_uint_ge(bd->blocks, n);
    ck_assert_uint_eq(mblock_n_in_use(), blocks_to_mblocks(n));
    /* The whole group is usable memory. */
    memset(bd->start, 0x5a, (size_t)n * BLOCK_SIZE);
    bd_free_group(bd);
    ck_assert_uint_eq(mblock_n_in_use(), 0);
    ck_assert(!bd_request_fits((StgWord)1 << 40));
}
END_TEST

/* bd_check must be able to fail: corrupt a free group's tail marker. */
START_TEST(check_catches_corruption)
{
    bdescr *a = bd_alloc_group(4);
    bdescr *keep = bd_alloc_group(1);
    (void)keep;
    bd_free_group(a);
    bdescr *tail = a + 3;
    tail->free = NULL;
    bd_check();
}
END_TEST

START_TEST(release_decommits_free_megablocks)
{
    bdescr *g = bd_alloc_group(4 * BLOCKS_PER_MBLOCK_ALL);
    uint64_t committed = mblock_n_committed();
    bd_free_group(g);
    ck_assert_uint_eq(mblock_n_committed(), committed);
    uint32_t released = mblock_release(0);
    ck_assert_uint_eq(released, committed);
    ck_assert_uint_eq(mblock_n_committed(), 0);
    /* Reusing decommitted megablocks works and needs no new reservation. */
    bdescr *h = bd_alloc_group(2 * BLOCKS_PER_MBLOCK_ALL);
    memset(h->start, 1, BLOCK_SIZE);
    bd_free_group(h);
}
END_TEST

/*
 * Note [Prefaulted megablocks]: claimed megablocks sit above the high-water
 * mark, count as committed, are the next fresh ones the allocator hands out,
 * and go first when memory is released.
 */
START_TEST(prefaulted_megablocks_come_first)
{
    void *used = mblock_alloc_group(64, 0);
    ck_assert_ptr_nonnull(used);
    /* 64 taken fresh: twice that, at most an eighth of those in use. */
    ck_assert_uint_eq(mblock_prefault_want(0, false, 0), 64 / 8);
    ck_assert_uint_eq(mblock_prefault_want(0, false, 0), 0); /* nothing fresh since */
    uintptr_t top = mblock_high_water();
    uint64_t committed = mblock_n_committed();
    void *base = NULL;
    ck_assert_uint_eq(mblock_prefault_claim(4, &base), 4);
    ck_assert_ptr_eq(base, (void *)top);
    ck_assert_uint_eq(mblock_prefault_claim(4, &base), 0); /* one populate at a time */
    mblock_prefault_done(os_populate(base, (size_t)4 << MBLOCK_SHIFT) || true);
    ck_assert_uint_eq(mblock_n_committed(), committed + 4);
    ck_assert_uint_eq(mblock_n_in_use(), 64);
    ck_assert_uint_eq(mblock_high_water(), top);
    ck_assert_uint_eq(mblock_prefault_stats().ahead, 4);
    /* The next fresh megablocks are the prefaulted ones. */
    void *more = mblock_alloc_group(16, 0);
    mblock_free_group(more, 16);
    ck_assert_uint_eq(mblock_prefault_stats().ahead, 0);
    ck_assert_uint_eq(mblock_prefault_want(0, false, 0), 64 / 8); /* 16 fresh: 32, capped */
    ck_assert_ptr_eq(more, base);
    ck_assert_uint_eq(mblock_prefault_stats().taken, 4);
    /* Released before anything else. */
    ck_assert_uint_eq(mblock_prefault_claim(2, &base), 2);
    mblock_prefault_done(true);
    memset(base, 7, 64); /* usable once taken: same mapping */
    uint64_t before = mblock_n_committed();
    ck_assert_uint_eq(mblock_release(before - 1), 2);
    ck_assert_uint_eq(mblock_prefault_stats().ahead, 0);
    ck_assert_uint_eq(mblock_n_committed(), before - 2);
    /* 18 do not fit the 16 freed below the high-water mark: they start at the 2 released. */
    void *again = mblock_alloc_group(18, 0);
    ck_assert_ptr_eq(again, base);
    memset(again, 1, 2 * MBLOCK_SIZE);
    mblock_free_group(again, 18);
    mblock_free_group(used, 64);
}
END_TEST

/*
 * A caller's expectation raises the request (up to a quarter of the
 * megablocks in use); a claim maps MBLOCK_COMMIT_AHEAD megablocks at once,
 * so the next claims and the allocator reaching them call the OS for
 * nothing (here, every OS commit after the first claim is made to fail),
 * and what is mapped ahead is not counted committed.
 */
START_TEST(prefault_expectation_and_commit_ahead)
{
    void *used = mblock_alloc_group(64, 0);
    ck_assert_ptr_nonnull(used);
    ck_assert_uint_eq(mblock_prefault_want(0, false, 0), 64 / 8);
    ck_assert_uint_eq(mblock_prefault_want(0, false, 0), 0);     /* nothing fresh since */
    ck_assert_uint_eq(mblock_prefault_want(10, false, 0), 10);   /* expected */
    ck_assert_uint_eq(mblock_prefault_want(1000, false, 0), 16); /* at most a quarter of 64 */
    /* While a mark runs: only what was taken fresh since the last ask, not twice it. */
    void *three = mblock_alloc_group(3, 0);
    ck_assert_uint_eq(mblock_prefault_want(0, true, 0), 3);
    mblock_free_group(three, 3);
    uint64_t committed = mblock_n_committed();
    void *base = NULL;
    ck_assert_uint_eq(mblock_prefault_claim(2, &base), 2);
    mblock_prefault_done(true);
    ck_assert_uint_eq(mblock_n_committed(), committed + 2);
    /* What is mapped ahead is not the reservation's never-used top (the symmetric heap's claim). */
    ck_assert(!mblock_claim_fixed((uintptr_t)base + 8 * MBLOCK_SIZE, MBLOCK_SIZE));
    setenv("HSRTS_FAIL_OS_ALLOC", "1", 1);
    os_mem_init_fault_injection();
    void *next = NULL;
    ck_assert_uint_eq(mblock_prefault_claim(2, &next), 2);
    mblock_prefault_done(true);
    ck_assert_ptr_eq(next, (char *)base + 2 * MBLOCK_SIZE);
    ck_assert_uint_eq(mblock_n_committed(), committed + 4);
    /* Past the prefaulted ones, into what the first claim mapped ahead. */
    void *fresh = mblock_alloc_group(8, 0);
    ck_assert_ptr_eq(fresh, base);
    memset((char *)fresh + 7 * MBLOCK_SIZE, 3, MBLOCK_SIZE);
    ck_assert_uint_eq(mblock_n_committed(), committed + 8);
    unsetenv("HSRTS_FAIL_OS_ALLOC");
    os_mem_init_fault_injection();
    mblock_free_group(fresh, 8);
    mblock_free_group(used, 64);
}
END_TEST

/*
 * A small heap may ask for what one collection can take (`one_gc`), beyond
 * the eighth of it in use: the first collections of a -xn program promote
 * a nursery's worth into fresh megablocks each.
 */
START_TEST(prefault_floor_is_one_collection)
{
    void *used = mblock_alloc_group(40, 0);
    ck_assert_ptr_nonnull(used);
    mblock_prefault_want(0, false, 0); /* start counting from here */
    void *more = mblock_alloc_group(8, 0);
    /* 8 fresh: twice is 16; an eighth of 48 in use is 6, one collection 12. */
    ck_assert_uint_eq(mblock_prefault_want(0, false, 12), 12);
    ck_assert_uint_eq(mblock_prefault_want(0, false, 12), 0); /* nothing fresh since */
    mblock_free_group(more, 8);
    mblock_free_group(used, 40);
}
END_TEST

/* How many pages of [p, p + bytes) are resident (mincore). */
static size_t resident_pages(const void *p, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = bytes / page, count = 0;
    unsigned char *vec = malloc(n);
    ck_assert_ptr_nonnull(vec);
    ck_assert_int_eq(mincore((void *)p, bytes, vec), 0);
    for (size_t i = 0; i < n; i++)
        count += vec[i] & 1;
    free(vec);
    return count;
}

/*
 * Note [Populating what is taken untouched]: a group of at most
 * MBLOCK_POPULATE_SYNC_MAX megablocks taken with no pages is populated by
 * the thread that took it once it lets sm_lock go, not while it holds it;
 * a larger group is left to fault; what a caller holding no lock left
 * pending is forgotten at the next sm_lock.
 */
START_TEST(untouched_groups_populate_after_the_lock)
{
    /* Only where the OS can populate (MADV_POPULATE_WRITE, Linux 5.14). */
    void *probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(probe, MAP_FAILED);
    bool can = os_populate(probe, 4096);
    munmap(probe, 4096);
    if (!can)
        return;
    /* Whole pages only: a transparent huge page would fill a megablock on its first write. */
    restart_heap(false);
    size_t half = MBLOCK_SIZE / 2, half_pages = half / (size_t)sysconf(_SC_PAGESIZE);

    sm_lock();
    bdescr *one = bd_alloc_group(BLOCKS_PER_MBLOCK);
    const char *upper = (const char *)MBLOCK_ROUND_DOWN(one->start) + half;
    ck_assert_uint_eq(resident_pages(upper, half), 0); /* not under the lock */
    sm_unlock();
    ck_assert_uint_eq(resident_pages(upper, half), half_pages);

    sm_lock();
    bdescr *big = bd_alloc_group(mblock_group_blocks(MBLOCK_POPULATE_SYNC_MAX + 1));
    sm_unlock();
    const char *last = (const char *)MBLOCK_ROUND_DOWN(big->start) +
                       (StgWord)MBLOCK_POPULATE_SYNC_MAX * MBLOCK_SIZE;
    ck_assert_uint_eq(resident_pages(last, MBLOCK_SIZE), 0); /* left to fault */

    bdescr *lockless = bd_alloc_group(BLOCKS_PER_MBLOCK);
    sm_lock();
    sm_unlock();
    upper = (const char *)MBLOCK_ROUND_DOWN(lockless->start) + half;
    ck_assert_uint_eq(resident_pages(upper, half), 0);

    bd_free_group(lockless);
    bd_free_group(big);
    bd_free_group(one);
    bd_check();
}
END_TEST

/*
 * Note [Huge pages]: the heap starts on a huge page, and a megablock taken
 * fresh lies in a mapping that covers its whole huge page, advised for huge
 * pages (the kernel's THPeligible); under --huge-pages=no, advised against.
 */
static void mapping_of(const void *p, uintptr_t *lo, uintptr_t *hi, int *eligible)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    bool in = false;
    *lo = *hi = 0;
    *eligible = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (uintptr_t)p >= a && (uintptr_t)p < b;
            if (in) {
                *lo = a;
                *hi = b;
            }
        } else if (in && sscanf(line, "THPeligible: %d", eligible) == 1) {
            break;
        }
    }
    fclose(f);
}

START_TEST(huge_pages_cover_whole_mappings)
{
    size_t huge = os_huge_page_size();
    if (huge < MBLOCK_SIZE || huge > MBLOCK_HUGE_PAGE_MAX)
        return; /* no transparent huge pages here, or too large for the heap to use */
    uintptr_t lo, hi;
    int eligible;
    restart_heap(true);
    ck_assert_uint_eq(mblock_heap_base % huge, 0);
    void *mb = mblock_alloc_group(1, 0);
    ck_assert_ptr_nonnull(mb);
    uintptr_t page = (uintptr_t)mb & ~(uintptr_t)(huge - 1);
    mapping_of(mb, &lo, &hi, &eligible);
    ck_assert_msg(lo <= page && hi >= page + huge,
                  "megablock %p: mapping %#lx-%#lx does not cover its huge page", mb,
                  (unsigned long)lo, (unsigned long)hi);
    if (eligible >= 0) /* the field is Linux 5.0's */
        ck_assert_int_eq(eligible, 1);
    /* The rest of its huge page is the next fresh megablock, committed only when taken. */
    ck_assert_uint_eq(mblock_n_committed(), 1);
    void *next = mblock_alloc_group(1, 0);
    ck_assert_ptr_eq(next, (char *)mb + MBLOCK_SIZE);
    ck_assert_uint_eq(mblock_n_committed(), 2);
    mblock_free_group(next, 1);
    mblock_free_group(mb, 1);

    /* Advised against: a group holding whole huge pages still gets none. */
    restart_heap(false);
    void *four = mblock_alloc_group(4, 0);
    ck_assert_ptr_nonnull(four);
    mapping_of(four, &lo, &hi, &eligible);
    ck_assert_uint_ge(hi - lo, 4 * MBLOCK_SIZE);
    if (eligible >= 0)
        ck_assert_int_eq(eligible, 0);
    mblock_free_group(four, 4);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("block_alloc");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_against_model);
    tcase_add_test(tc, single_blocks_coalesce_in_any_order);
    tcase_add_test(tc, freed_neighbours_merge);
    tcase_add_test(tc, megablock_groups_span_megablocks);
#ifdef DEBUG
    tcase_add_test(tc, freed_blocks_are_poisoned_or_zeroed);
#endif
    tcase_add_test(tc, release_decommits_free_megablocks);
    tcase_add_test(tc, prefaulted_megablocks_come_first);
    tcase_add_test(tc, prefault_expectation_and_commit_ahead);
    tcase_add_test(tc, prefault_floor_is_one_collection);
    tcase_add_test(tc, untouched_groups_populate_after_the_lock);
    tcase_add_test(tc, huge_pages_cover_whole_mappings);
    tcase_add_test_raise_signal(tc, check_catches_corruption, SIGABRT);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return test_run(suite());
}
