/*
 * An independent decoder of the event log's binary format (reference
 * section 7.1) for the unit tests: the header's event types and sizes,
 * the data blocks, per-buffer time order, every event counted by type,
 * USER_MSG texts and NONMOVING_HEAP_CENSUS figures. A malformed log fails
 * the calling test (check's assertions).
 */
#ifndef HSRTS_TEST_EVENTLOG_DECODE_H
#define HSRTS_TEST_EVENTLOG_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int sizes[256]; /* -1 unknown, 0xFFFF variable */
    int n_types;
    int n_blocks, n_events, n_user;
    char user[16][64];
    uint64_t last_time[2]; /* per buffer: capability 0, global */
    int n_of[256];         /* events of each type */
    /* NONMOVING_HEAP_CENSUS events: slot words, active, filled, live slots; the sweep (the
     * number of CONC_SWEEP_END events before it) each came in. */
    struct {
        uint32_t words, v[3];
        int sweep;
    } census[4096];
    int n_census;
    bool census_sizes_ok;
    bool time_order_ok, blocks_ok, ended;
} Decoded;

void eventlog_decode(const uint8_t *log, size_t len, Decoded *d);
/* A log file's bytes (malloc'd; *len set); the file is removed. */
uint8_t *eventlog_take_file(const char *path, size_t *len);

#endif
