/*
 * The block allocator. See block_alloc.h for the invariants.
 */
#include "sm/block_alloc.h"

#include <pthread.h>
#include <string.h>

#include "Rts.h"
#include "hooks.h"
#include "flags/flags.h"
#include "messages.h"
#include "os/os_numa.h"
#include "sm/mblock.h"
#include "sm/numa.h"

/* floor(log2(BLOCKS_PER_MBLOCK - 1)) + 1 buckets. */
#define NUM_FREE_LISTS 8

static bdescr *free_list[MAX_NUMA_NODES][NUM_FREE_LISTS];
static uint64_t n_alloc_blocks;
static uint64_t hw_alloc_blocks;
static uint64_t n_free_blocks;

static pthread_mutex_t sm_mutex = PTHREAD_MUTEX_INITIALIZER;

void sm_lock(void)
{
    pthread_mutex_lock(&sm_mutex);
    mblock_forget_pending();
}
/* Then what this thread took untouched is populated, outside the lock (Note [Populating what
 * is taken untouched] in mblock.c). */
void sm_unlock(void)
{
    pthread_mutex_unlock(&sm_mutex);
    mblock_populate_pending();
}

void bd_init(void)
{
    memset(free_list, 0, sizeof free_list);
    n_alloc_blocks = hw_alloc_blocks = n_free_blocks = 0;
}

void bd_exit(void)
{
    bd_init();
}

static uint32_t log2_floor(StgWord n)
{
    return 63 - (uint32_t)__builtin_clzl(n);
}

static uint32_t log2_ceil(StgWord n)
{
    return n <= 1 ? 0 : log2_floor(n - 1) + 1;
}

/* --- free lists (doubly linked through link / u.back) ------------------------- */

static void free_list_insert(bdescr *bd)
{
    bdescr **head = &free_list[bd->node][log2_floor(bd->blocks)];
    bd->u.back = NULL;
    bd->link = *head;
    if (*head)
        (*head)->u.back = bd;
    *head = bd;
}

static void free_list_remove(bdescr *bd)
{
    if (bd->u.back)
        bd->u.back->link = bd->link;
    else
        free_list[bd->node][log2_floor(bd->blocks)] = bd->link;
    if (bd->link)
        bd->link->u.back = bd->u.back;
}

/* Make bd (head, blocks set) a free group and list it. */
static void mark_free(bdescr *bd)
{
    bdescr *tail = bd + bd->blocks - 1;
    bd->free = BD_FREE_MARK;
    bd->free_group = 1;
    if (tail != bd) {
        tail->free = BD_FREE_MARK;
        tail->free_group = 1;
        tail->blocks = 0;
        tail->link = bd;
    }
    free_list_insert(bd);
}

/* Initialise an allocated group's descriptors (head->blocks already set). */
static void init_group(bdescr *head)
{
    head->free = head->start;
    head->free_group = 0;
    head->link = NULL;
    head->u.back = NULL;
    head->gen = NULL;
    head->gen_no = head->dest_no = 0;
    head->flags = 0;
    StgWord n = head->blocks;
    if (n > BLOCKS_PER_MBLOCK)
        n = BLOCKS_PER_MBLOCK; /* later megablocks of a group have no descriptors */
    for (StgWord i = 1; i < n; i++) {
        head[i].blocks = 0;
        head[i].link = head;
        head[i].free = NULL;
        head[i].free_group = 0;
        head[i].flags = 0;
        head[i].gen = NULL;
    }
}

/* Fresh megablocks from the megablock layer, with their descriptors set up. */
static bdescr *alloc_mega_group(uint32_t node, uint32_t mblocks)
{
    void *mb = mblock_alloc_group(mblocks, node);
    if (!mb) {
        sm_unlock();
        if (mblock_last_failure() == MBLOCK_FULL)
            msg_fatal(EXIT_HEAPOVERFLOW,
                      "heap exhausted: the heap's %lu-byte address space (-xr) is full "
                      "(requested %lu more bytes)",
                      (unsigned long)mblock_heap_size, (unsigned long)mblocks * MBLOCK_SIZE);
        hooks_os_alloc_failed((StgWord)mblocks * MBLOCK_SIZE, "block allocator: out of memory");
    }
    if (numa_bind)
        os_numa_bind(mb, (size_t)mblocks * MBLOCK_SIZE, numa_os_node[node]);
    bdescr *bd = first_bdescr(mb);
    for (bdescr *d = bd; d <= last_bdescr(mb); d++) {
        d->start = (StgPtr)(((StgWord)mb) + (StgWord)(d - bd) * BLOCK_SIZE + FIRST_BLOCK_OFF);
        d->node = (uint16_t)node;
    }
    bd->blocks = (uint32_t)mblock_group_blocks(mblocks);
    return bd;
}

/* Take n blocks off the end of free group bd (already removed from its list). */
static bdescr *split_tail(bdescr *bd, StgWord n)
{
    ASSERT(n > 0 && n < bd->blocks);
    bd->blocks -= (uint32_t)n;
    bdescr *rest = bd + bd->blocks;
    rest->blocks = (uint32_t)n;
    mark_free(bd);
    return rest;
}

static void count_alloc(StgWord blocks)
{
    n_alloc_blocks += blocks;
    if (n_alloc_blocks > hw_alloc_blocks)
        hw_alloc_blocks = n_alloc_blocks;
}

bool bd_request_fits(StgWord n)
{
    return n > 0 && n < ((StgWord)1 << 31) &&
           (uint64_t)blocks_to_mblocks(n) <= mblock_heap_size / MBLOCK_SIZE;
}

bdescr *bd_alloc_group_on_node(uint32_t node, StgWord n)
{
    if (n == 0)
        msg_barf("bd_alloc_group: zero blocks");
    if (!bd_request_fits(n)) {
        sm_unlock();
        msg_fatal(
            EXIT_HEAPOVERFLOW,
            "out of memory (requested %lu blocks, more than the heap's address space; see -xr)",
            (unsigned long)n);
    }
    bdescr *bd;
    if (n >= BLOCKS_PER_MBLOCK) {
        bd = alloc_mega_group(node, blocks_to_mblocks(n));
        init_group(bd);
        count_alloc(bd->blocks);
        return bd;
    }

    bd = NULL;
    /* A group in n's own bucket may already be big enough; look at a few. */
    uint32_t lo = log2_floor(n);
    int budget = 8;
    for (bdescr *c = free_list[node][lo]; c && budget > 0; c = c->link, budget--) {
        if (c->blocks >= n) {
            bd = c;
            break;
        }
    }
    /* Any group in a higher bucket is big enough. */
    for (uint32_t k = log2_ceil(n); !bd && k < NUM_FREE_LISTS; k++)
        bd = free_list[node][k];

    if (bd) {
        free_list_remove(bd);
        n_free_blocks -= bd->blocks;
    } else {
        bd = alloc_mega_group(node, 1);
    }
    if (bd->blocks > n) {
        n_free_blocks += bd->blocks - n;
        bd = split_tail(bd, n);
    }
    init_group(bd);
    count_alloc(n);
#ifdef DEBUG
    if (rts_flags.debug.block_alloc)
        msg_debug("bd: allocated %lu blocks at %p\n", (unsigned long)n, (void *)bd->start);
#endif
    return bd;
}

bdescr *bd_alloc_group(StgWord n)
{
    return bd_alloc_group_on_node(0, n);
}

bdescr *bd_alloc_group_lock(StgWord n)
{
    sm_lock();
    bdescr *bd = bd_alloc_group(n);
    sm_unlock();
    return bd;
}

bdescr *bd_alloc_block(void)
{
    return bd_alloc_group(1);
}
bdescr *bd_alloc_block_lock(void)
{
    return bd_alloc_group_lock(1);
}

bdescr *bd_alloc_block_on_node_lock(uint32_t node)
{
    sm_lock();
    bdescr *bd = bd_alloc_group_on_node(node, 1);
    sm_unlock();
    return bd;
}

uint64_t bd_free_seq;

void bd_free_group(bdescr *bd)
{
    if (bd->free == BD_FREE_MARK || bd->blocks == 0)
        msg_barf("bd_free_group: %p is not the head of an allocated group", (void *)bd->start);
    /* Before any descriptor changes: see bd_free_seq in block_alloc.h. */
    __atomic_fetch_add(&bd_free_seq, 1, __ATOMIC_SEQ_CST);
    n_alloc_blocks -= bd->blocks;
#ifdef DEBUG
    /*
     * Freed memory gets a recognisable pattern, so that a dangling pointer
     * shows; with -DZ it is zeroed instead (GHC's "zero freed memory").
     */
    memset(bd->start, rts_flags.debug.zero_on_gc ? 0 : 0xaa, (size_t)bd->blocks * BLOCK_SIZE);
    if (rts_flags.debug.block_alloc)
        msg_debug("bd: freed %lu blocks at %p\n", (unsigned long)bd->blocks, (void *)bd->start);
#endif
    if (bd->blocks >= BLOCKS_PER_MBLOCK) {
        mblock_free_group(MBLOCK_ROUND_DOWN(bd->start), blocks_to_mblocks(bd->blocks));
        return;
    }
    bd->flags = 0;
    bd->gen = NULL;
    n_free_blocks += bd->blocks;

    bdescr *next = bd + bd->blocks;
    if (next <= last_bdescr(bd->start) && next->free_group) {
        free_list_remove(next);
        bd->blocks += next->blocks;
        next->blocks = 0;
        next->link = bd;
    }
    if (bd != first_bdescr(bd->start)) {
        bdescr *prev = bd - 1;
        if (prev->blocks == 0)
            prev = prev->link;
        if (prev->free_group) {
            free_list_remove(prev);
            prev->blocks += bd->blocks;
            bd->blocks = 0;
            bd->link = prev;
            bd = prev;
        }
    }
    if (bd->blocks == BLOCKS_PER_MBLOCK) {
        n_free_blocks -= bd->blocks;
        mblock_free_group(MBLOCK_ROUND_DOWN(bd->start), 1);
        return;
    }
    mark_free(bd);
}

void bd_free_group_lock(bdescr *bd)
{
    sm_lock();
    bd_free_group(bd);
    sm_unlock();
}

void bd_free_chain(bdescr *bd)
{
    while (bd) {
        bdescr *next = bd->link;
        bd_free_group(bd);
        bd = next;
    }
}

void bd_free_chain_lock(bdescr *bd)
{
    sm_lock();
    bd_free_chain(bd);
    sm_unlock();
}

uint64_t bd_n_alloc_blocks(void)
{
    return n_alloc_blocks;
}
uint64_t bd_hw_alloc_blocks(void)
{
    return hw_alloc_blocks;
}
void bd_reset_hw_alloc_blocks(void)
{
    hw_alloc_blocks = n_alloc_blocks;
}
uint64_t bd_n_free_blocks(void)
{
    return n_free_blocks;
}

void bd_check(void)
{
    uint64_t free_seen = 0, alloc_seen = 0;
    /* Every megablock in use is tiled exactly by its groups. */
    for (void *mb = mblock_next_in_use(NULL); mb; mb = mblock_next_in_use(mb)) {
        bdescr *bd = first_bdescr(mb);
        if (bd->blocks > BLOCKS_PER_MBLOCK) {
            if (bd_is_free(bd))
                msg_barf("bd_check: free megablock group at %p", mb);
            uint32_t m = blocks_to_mblocks(bd->blocks);
            alloc_seen += bd->blocks;
            /* Skip the group's other megablocks: they hold data, not descriptors. */
            for (uint32_t i = 1; i < m; i++)
                mb = mblock_next_in_use(mb);
            continue;
        }
        bool prev_free = false;
        while (bd <= last_bdescr(mb)) {
            if (bd->blocks == 0 || bd + bd->blocks - 1 > last_bdescr(mb))
                msg_barf("bd_check: bad group length %u at %p", bd->blocks, (void *)bd->start);
            /* Allocated groups: every other descriptor points at the head. */
            for (uint32_t i = 1; !bd_is_free(bd) && i < bd->blocks; i++)
                if (bd[i].link != bd || bd[i].blocks != 0)
                    msg_barf("bd_check: block %u of group %p does not point at its head", i,
                             (void *)bd->start);
            if (bd_is_free(bd)) {
                if (prev_free)
                    msg_barf("bd_check: adjacent free groups at %p", (void *)bd->start);
                bdescr *tail = bd + bd->blocks - 1;
                if (tail != bd && (tail->free != BD_FREE_MARK || tail->link != bd))
                    msg_barf("bd_check: free group %p has an unmarked tail", (void *)bd->start);
                bool listed = false;
                for (bdescr *c = free_list[bd->node][log2_floor(bd->blocks)]; c; c = c->link)
                    if (c == bd) {
                        listed = true;
                        break;
                    }
                if (!listed)
                    msg_barf("bd_check: free group %p is not on its free list", (void *)bd->start);
                free_seen += bd->blocks;
                prev_free = true;
            } else {
                alloc_seen += bd->blocks;
                prev_free = false;
            }
            bd += bd->blocks;
        }
    }
    if (free_seen != n_free_blocks)
        msg_barf("bd_check: %llu free blocks found, %llu counted", (unsigned long long)free_seen,
                 (unsigned long long)n_free_blocks);
    if (alloc_seen != n_alloc_blocks)
        msg_barf("bd_check: %llu allocated blocks found, %llu counted",
                 (unsigned long long)alloc_seen, (unsigned long long)n_alloc_blocks);
    /* Every listed group is a free group of its bucket. */
    uint64_t listed = 0;
    for (uint32_t node = 0; node < MAX_NUMA_NODES; node++)
        for (uint32_t k = 0; k < NUM_FREE_LISTS; k++)
            for (bdescr *c = free_list[node][k]; c; c = c->link) {
                if (!bd_is_free(c) || log2_floor(c->blocks) != k)
                    msg_barf("bd_check: bad group %p on free list %u", (void *)c->start, k);
                listed += c->blocks;
            }
    if (listed != n_free_blocks)
        msg_barf("bd_check: free lists hold %llu blocks, %llu counted", (unsigned long long)listed,
                 (unsigned long long)n_free_blocks);
}
