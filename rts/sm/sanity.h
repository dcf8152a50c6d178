/*
 * The sanity checker (debug way, +RTS -DS): a check of the whole heap
 * before and after every collection.
 */
#ifndef RTS_SM_SANITY_H
#define RTS_SM_SANITY_H

#include <stdbool.h>

/*
 * Check the block allocator, every generation, nursery, remembered set,
 * stack and object: every pointer lands on an object with a valid info
 * table, every block is accounted for exactly once, and no object of an
 * old generation points into a younger one without being remembered.
 * `when` names the moment in error messages. Any violation is fatal.
 */
void sanity_check_heap(const char *when, bool after_gc);

#endif /* RTS_SM_SANITY_H */
