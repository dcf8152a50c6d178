/*
 * Closure-type names. See layout.h.
 */
#include "sm/layout.h"

static const char *const type_names[N_CLOSURE_TYPES] = {
    [INVALID_OBJECT] = "INVALID_OBJECT",
    [CONSTR] = "CONSTR",
    [FUN] = "FUN",
    [THUNK] = "THUNK",
    [THUNK_SELECTOR] = "THUNK_SELECTOR",
    [AP] = "AP",
    [PAP] = "PAP",
    [IND] = "IND",
    [BLACKHOLE] = "BLACKHOLE",
    [ARR_WORDS] = "ARR_WORDS",
    [MUT_ARR_PTRS_CLEAN] = "MUT_ARR_PTRS_CLEAN",
    [MUT_ARR_PTRS_DIRTY] = "MUT_ARR_PTRS_DIRTY",
    [MUT_ARR_PTRS_FROZEN_CLEAN] = "MUT_ARR_PTRS_FROZEN_CLEAN",
    [MUT_ARR_PTRS_FROZEN_DIRTY] = "MUT_ARR_PTRS_FROZEN_DIRTY",
    [SMALL_MUT_ARR_PTRS_CLEAN] = "SMALL_MUT_ARR_PTRS_CLEAN",
    [SMALL_MUT_ARR_PTRS_DIRTY] = "SMALL_MUT_ARR_PTRS_DIRTY",
    [SMALL_MUT_ARR_PTRS_FROZEN_CLEAN] = "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN",
    [SMALL_MUT_ARR_PTRS_FROZEN_DIRTY] = "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY",
    [MUT_VAR_CLEAN] = "MUT_VAR_CLEAN",
    [MUT_VAR_DIRTY] = "MUT_VAR_DIRTY",
    [WEAK] = "WEAK",
    [STABLE_NAME] = "PRIM", /* GHC's census name for stable names */
    [TSO] = "TSO",
    [STACK] = "STACK",
    [CONSTR_STATIC] = "CONSTR_NOCAF",
    [FUN_STATIC] = "FUN_STATIC",
    [THUNK_STATIC] = "THUNK_STATIC",
    [IND_STATIC] = "IND_STATIC",
    [RET_SMALL] = "RET_SMALL",
    [RET_BIG] = "RET_BIG",
    [RET_DYN] = "RET_DYN",
    [UPDATE_FRAME] = "UPDATE_FRAME",
    [UNDERFLOW_FRAME] = "UNDERFLOW_FRAME",
    [STOP_FRAME] = "STOP_FRAME",
};

const char *layout_type_name(uint32_t type)
{
    return type < N_CLOSURE_TYPES && type_names[type] ? type_names[type] : "INVALID_OBJECT";
}
