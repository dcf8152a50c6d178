/*
 * hsrts public header: the info tables the runtime itself provides.
 */
#ifndef HSRTS_RTS_STGINFO_H
#define HSRTS_RTS_STGINFO_H

#include "rts/InfoTables.h"

#define RTS_INFO(name) extern RTS_EXPORT const StgInfoTable name

RTS_INFO(stg_IND_info);
RTS_INFO(stg_IND_STATIC_info);
RTS_INFO(stg_BLACKHOLE_info);
RTS_INFO(stg_ARR_WORDS_info);
RTS_INFO(stg_MUT_ARR_PTRS_CLEAN_info);
RTS_INFO(stg_MUT_ARR_PTRS_DIRTY_info);
RTS_INFO(stg_MUT_ARR_PTRS_FROZEN_CLEAN_info);
RTS_INFO(stg_MUT_ARR_PTRS_FROZEN_DIRTY_info);
RTS_INFO(stg_SMALL_MUT_ARR_PTRS_CLEAN_info);
RTS_INFO(stg_SMALL_MUT_ARR_PTRS_DIRTY_info);
RTS_INFO(stg_SMALL_MUT_ARR_PTRS_FROZEN_CLEAN_info);
RTS_INFO(stg_SMALL_MUT_ARR_PTRS_FROZEN_DIRTY_info);
RTS_INFO(stg_MUT_VAR_CLEAN_info);
RTS_INFO(stg_MUT_VAR_DIRTY_info);
RTS_INFO(stg_WEAK_info);
RTS_INFO(stg_DEAD_WEAK_info);
RTS_INFO(stg_STABLE_NAME_info);
RTS_INFO(stg_TSO_info);
RTS_INFO(stg_STACK_info);
RTS_INFO(stg_PAP_info);
RTS_INFO(stg_AP_info);
RTS_INFO(stg_RET_DYN_info);
RTS_INFO(stg_UPDATE_FRAME_info);
RTS_INFO(stg_UNDERFLOW_FRAME_info);
RTS_INFO(stg_STOP_FRAME_info);

#undef RTS_INFO

#endif /* HSRTS_RTS_STGINFO_H */
