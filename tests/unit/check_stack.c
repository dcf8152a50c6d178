/*
 * Thread stacks: chunk sizes follow -ki and -kc; deep recursion through
 * root frames grows across many chunks and shrinks back (emptied chunks
 * are freed by the collector); on overflow the topmost update frames, up
 * to -kb bytes, move to the new chunk; passing -K ends the program with
 * the stack-overflow hook and exit status 2. The collectors' frame walker
 * (StackWalk, rts/sm/layout.h) visits every frame of a hand-built chunk
 * once, with its pointer slots, stops at its bottom frame and reports a
 * corrupt frame.
 */
#include <check.h>
#include <stdlib.h>

#include "capability.h"
#include "sm/block_alloc.h"
#include "sm/layout.h"
#include "test_util.h"

static StgStack *current(Capability *cap)
{
    return HS_REGS(cap)->stack;
}

/* Chunks of the current thread, newest first. */
static int count_chunks(Capability *cap)
{
    int n = 1;
    StgStack *s = current(cap);
    for (;;) {
        StgClosure *bottom = (StgClosure *)(s->stack + s->stack_size - SIZEOF_W(StgUnderflowFrame));
        if (bottom->info != &stg_UNDERFLOW_FRAME_info)
            return n;
        s = ((StgUnderflowFrame *)bottom)->next_chunk;
        n++;
    }
}

START_TEST(chunk_sizes_follow_ki_and_kc)
{
    test_start_rts("check_stack", "-ki4k -kc64k -kb1k", 1);
    Capability *cap = rts_lock();
    StgStack *first = current(cap);
    ck_assert_uint_eq(SIZEOF_W(StgStack) + first->stack_size, 4096 / 8);
    StgClosure **big = rts_push_roots(cap, 600); /* more than the first chunk holds */
    StgStack *second = current(cap);
    ck_assert_ptr_ne(second, first);
    ck_assert_uint_eq(SIZEOF_W(StgStack) + second->stack_size, 65536 / 8);
    ck_assert_int_eq(count_chunks(cap), 2);
    performGC();
    rts_pop_roots(cap, big);
    ck_assert_ptr_eq(current(cap), first);
    ck_assert_int_eq(count_chunks(cap), 1);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

static const StgInfoTable int_info = HS_CONSTR_INFO(0, 0, 1, "test:Int");
static int deepest_chunks;
/* Big frames, so a C recursion the C stack can take still spans many chunks. */
#define FRAME_SLOTS 30

/* Recurse through root frames; every level allocates; returns depth. */
static StgWord recurse(Capability *cap, StgWord depth)
{
    if (depth == 0) {
        deepest_chunks = count_chunks(cap);
        performGC();
        return 0;
    }
    StgClosure **r = rts_push_roots(cap, FRAME_SLOTS);
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = depth;
    r[0] = c;
    StgWord below = recurse(cap, depth - 1);
    StgWord here = ((StgWord *)UNTAG(r[0])->payload)[0];
    rts_pop_roots(cap, r);
    ck_assert_uint_eq(here, depth);
    return below + 1;
}

START_TEST(deep_recursion_grows_and_shrinks)
{
    test_start_rts("check_stack", "-A64k", 0);
    Capability *cap = rts_lock();
    performMajorGC();
    uint64_t floor_blocks = bd_n_alloc_blocks();
    StgWord words_before = HS_REGS(cap)->tso->tot_stack_size;
    enum { DEPTH = 20000 }; /* 32 words a frame: about 150 chunks of 32k */
    ck_assert_uint_eq(recurse(cap, DEPTH), DEPTH);
    ck_assert_int_ge(deepest_chunks, (int)(DEPTH * (FRAME_SLOTS + 2) * 8 / (32 * 1024)));
    ck_assert_int_eq(count_chunks(cap), 1);
    ck_assert_uint_eq(HS_REGS(cap)->tso->tot_stack_size, words_before);
    performMajorGC();
    performMajorGC();
    ck_assert_uint_eq(bd_n_alloc_blocks(), floor_blocks);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/*
 * nest n: evaluates nest (n - 1) (a nested evaluation, not a tail call) and
 * returns its value; nest 0 is `inspect`. No free-variable frames: the stack
 * holds only update frames.
 */
static StgClosure *nest_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static StgClosure *inspect_entry(Capability *cap, StgClosure *self, StgClosure **fv);
static const StgInfoTable nest_info = HS_THUNK_INFO(nest_entry, 0, 1, "test:nest");
static const StgInfoTable inspect_info = HS_THUNK_INFO(inspect_entry, 0, 1, "test:inspect");

static StgClosure *nest_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)fv;
    StgWord n = ((StgWord *)((StgThunk *)self)->payload)[0];
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = n == 1 ? &inspect_info : &nest_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = n - 1;
    return rts_eval(cap, (StgClosure *)t);
}

static int frames_in_chunk[1024];
static int chunks_seen;

/* At the bottom of the chain: how many update frames does each chunk hold? */
static StgClosure *inspect_entry(Capability *cap, StgClosure *self, StgClosure **fv)
{
    (void)self;
    (void)fv;
    chunks_seen = 0;
    for (StgStack *s = current(cap);;) {
        int n = 0;
        StgPtr p = s->sp;
        while (((StgClosure *)p)->info == &stg_UPDATE_FRAME_info) {
            n++;
            p += SIZEOF_W(StgUpdateFrame);
        }
        frames_in_chunk[chunks_seen++] = n;
        if (((StgClosure *)p)->info != &stg_UNDERFLOW_FRAME_info)
            break;
        s = ((StgUnderflowFrame *)p)->next_chunk;
    }
    StgClosure *c = (StgClosure *)rts_alloc(cap, 2);
    c->info = &int_info;
    ((StgWord *)c->payload)[0] = 1;
    return TAG_CLOSURE(1, c);
}

START_TEST(update_frames_carried_over_up_to_kb)
{
    /* -kc4k: 508 words of frames a chunk; -kb256: 32 words = 16 update frames. */
    test_start_rts("check_stack", "-ki4k -kc4k -kb256", 1);
    Capability *cap = rts_lock();
    enum { L = 2000 };
    StgClosure **r = rts_push_roots(cap, 1);
    StgThunk *t = (StgThunk *)rts_alloc(cap, 3);
    t->info = &nest_info;
    t->slot = 0;
    ((StgWord *)t->payload)[0] = L;
    r[0] = (StgClosure *)t;
    StgClosure *v = rts_eval(cap, r[0]);
    ck_assert_uint_eq(((StgWord *)UNTAG(v)->payload)[0], 1);
    /*
     * Newest chunk first. Each chunk in between was filled (253 update
     * frames fit above its underflow frame) and then gave its top 16
     * frames, 256 bytes, to the next one.
     */
    ck_assert_int_gt(chunks_seen, 4);
    int total = 0;
    for (int i = 0; i < chunks_seen; i++)
        total += frames_in_chunk[i];
    ck_assert_int_eq(total, L + 1);
    for (int i = 1; i < chunks_seen - 1; i++)
        ck_assert_msg(frames_in_chunk[i] == 253 - 16, "chunk %d holds %d update frames, want 237",
                      i, frames_in_chunk[i]);
    rts_pop_roots(cap, r);
    rts_unlock(cap);
    hs_exit();
}
END_TEST

/* Recurses until the stack passes -K (depth ends it only in theory). */
static StgWord forever(Capability *cap, StgWord depth)
{
    if (depth == (StgWord)-1)
        return 0;
    StgClosure **r = rts_push_roots(cap, 4);
    StgWord d = forever(cap, depth + 1);
    rts_pop_roots(cap, r);
    return d;
}

START_TEST(passing_K_is_stack_overflow)
{
    test_start_rts("check_stack", "-K256k", 0);
    Capability *cap = rts_lock();
    forever(cap, 0); /* the hook reports, the program exits 2 */
}
END_TEST

static void quiet_hook(W_ size)
{
    (void)size;
}

START_TEST(custom_stack_overflow_hook)
{
    char *argv_store[] = {"check_stack", "+RTS", "-K128k", "-RTS", NULL};
    char **argv = argv_store;
    int argc = 4;
    RtsConfig cfg = defaultRtsConfig;
    cfg.rts_opts_enabled = RtsOptsAll;
    cfg.stackOverflowHook = quiet_hook;
    hs_init_ghc(&argc, &argv, cfg);
    Capability *cap = rts_lock();
    forever(cap, 0);
}
END_TEST

/* --- the frame walker on hand-built chunks --------------------------------- */

static const StgInfoTable ret_small_info = {.type = RET_SMALL, .ptrs = 3, .bitmap.small = 0x5};
static const struct {
    StgWord size;
    StgWord bitmap[2];
} big_bitmap = {70, {0x1, (StgWord)1 << 5}}; /* slots 0 and 69 */
static const StgInfoTable ret_big_info = {.type = RET_BIG,
                                          .bitmap.large = (const StgLargeBitmap *)&big_bitmap};
static const StgInfoTable not_a_frame_info = {.type = CONSTR, .ptrs = 1};

/* A chunk of n words, sp at word `at`. */
static StgStack *chunk(StgWord n, StgWord at)
{
    StgStack *s = calloc(1, sizeof(StgStack) + n * sizeof(StgWord));
    ck_assert_ptr_nonnull(s);
    s->stack_size = n;
    s->sp = s->stack + at;
    return s;
}

/* The pointer slots a walk reports, as offsets from the chunk's stack[]. */
static int walk_slots(StgStack *s, StgWord *frames, int *n_frames, StgWord *slots, bool *bad)
{
    int n = 0;
    *n_frames = 0;
    *bad = false;
    for (StackWalk w = stack_walk(s); stack_walk_next(&w);) {
        if (stack_walk_bad(&w)) {
            *bad = true;
            frames[(*n_frames)++] = (StgWord)(w.p - s->stack);
            continue; /* the walk must end by itself */
        }
        frames[(*n_frames)++] = (StgWord)(w.p - s->stack);
        StgClosure **first = stack_walk_slots(&w);
        for (StgWord i = 0; i < w.f.n_slots; i++)
            if (frame_slot_is_ptr(&w.f, i))
                slots[n++] = (StgWord)((StgPtr)&first[i] - s->stack);
    }
    return n;
}

START_TEST(stack_walk_visits_each_frame_once)
{
    /* sp at 4: RET_SMALL(3) at 4..7, RET_DYN(2) at 8..11, RET_BIG(70) at
     * 12..82, UPDATE_FRAME at 83..84, UNDERFLOW_FRAME at 85..86, then words
     * the walk must not read as frames (the next chunk is elsewhere). */
    StgStack *s = chunk(100, 4);
    StgWord *w = s->stack;
    w[4] = (StgWord)&ret_small_info;
    w[8] = (StgWord)&stg_RET_DYN_info;
    w[9] = 2;
    w[12] = (StgWord)&ret_big_info;
    w[83] = (StgWord)&stg_UPDATE_FRAME_info;
    w[85] = (StgWord)&stg_UNDERFLOW_FRAME_info;
    w[87] = (StgWord)&not_a_frame_info;
    StgWord frames[16], slots[16];
    int n_frames;
    bool bad;
    int n = walk_slots(s, frames, &n_frames, slots, &bad);
    const StgWord want_frames[] = {4, 8, 12, 83, 85};
    const StgWord want_slots[] = {5, 7, 10, 11, 13, 82, 84, 86};
    ck_assert(!bad);
    ck_assert_int_eq(n_frames, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(frames[i], want_frames[i]);
    ck_assert_int_eq(n, 8);
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(slots[i], want_slots[i]);

    /* A STOP_FRAME ends it too; an empty chunk (sp at the end) has none. */
    w[4] = (StgWord)&stg_STOP_FRAME_info;
    n = walk_slots(s, frames, &n_frames, slots, &bad);
    ck_assert(!bad);
    ck_assert_int_eq(n_frames, 1);
    ck_assert_int_eq(n, 0);
    s->sp = s->stack + s->stack_size;
    walk_slots(s, frames, &n_frames, slots, &bad);
    ck_assert_int_eq(n_frames, 0);
    free(s);
}
END_TEST

START_TEST(stack_walk_reports_a_corrupt_frame_last)
{
    StgWord frames[16], slots[16];
    int n_frames;
    bool bad;
    /* Not a frame's type, after a good frame. */
    StgStack *s = chunk(10, 2);
    s->stack[2] = (StgWord)&stg_UPDATE_FRAME_info;
    s->stack[4] = (StgWord)&not_a_frame_info;
    s->stack[5] = (StgWord)&stg_STOP_FRAME_info;
    walk_slots(s, frames, &n_frames, slots, &bad);
    ck_assert(bad);
    ck_assert_int_eq(n_frames, 2);
    ck_assert_uint_eq(frames[1], 4);
    /* A frame running past the chunk's end. */
    s->stack[4] = (StgWord)&ret_small_info; /* 4 words from 7: 7..10 */
    s->sp = s->stack + 7;
    s->stack[7] = (StgWord)&ret_small_info;
    walk_slots(s, frames, &n_frames, slots, &bad);
    ck_assert(bad);
    ck_assert_int_eq(n_frames, 1);
    ck_assert_uint_eq(frames[0], 7);
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stack");
    TCase *tc = tcase_create("stack");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, chunk_sizes_follow_ki_and_kc);
    tcase_add_test(tc, deep_recursion_grows_and_shrinks);
    tcase_add_test(tc, update_frames_carried_over_up_to_kb);
    tcase_add_test(tc, stack_walk_visits_each_frame_once);
    tcase_add_test(tc, stack_walk_reports_a_corrupt_frame_last);
    tcase_add_exit_test(tc, passing_K_is_stack_overflow, 2);
    tcase_add_exit_test(tc, custom_stack_overflow_hook, 2);
    suite_add_tcase(s, tc);
    return test_run(s);
}
