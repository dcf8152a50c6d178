/*
 * Remembered sets. See Note [Remembered sets] in mut_list.h.
 */
#include "sm/mut_list.h"

bdescr *mut_list_new_block(void)
{
    bdescr *bd = bd_alloc_block_lock();
    bd->flags = BF_MUT_LIST;
    return bd;
}

bdescr *mut_list_grow(Capability *cap, uint32_t gen_no)
{
    bdescr *bd = mut_list_new_block();
    bd->link = cap->mut_lists[gen_no];
    cap->mut_lists[gen_no] = bd;
    return bd;
}

StgWord mut_list_count(const bdescr *bd)
{
    StgWord n = 0;
    for (; bd; bd = bd->link)
        n += bd_words(bd);
    return n;
}
