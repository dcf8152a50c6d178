/* The unit tests' event log decoder (eventlog_decode.h). */
#include "eventlog_decode.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const uint8_t *p, *end;
    bool bad;
} Rd;
static uint64_t rd(Rd *r, int bytes)
{
    uint64_t v = 0;
    if (r->end - r->p < bytes) {
        r->bad = true;
        return 0;
    }
    for (int i = 0; i < bytes; i++)
        v = v << 8 | *r->p++;
    return v;
}

void eventlog_decode(const uint8_t *log, size_t len, Decoded *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < 256; i++)
        d->sizes[i] = -1;
    d->time_order_ok = d->blocks_ok = d->census_sizes_ok = true;
    Rd r = {log, log + len, false};
    ck_assert_uint_eq(rd(&r, 4), 0x68647262); /* hdrb */
    ck_assert_uint_eq(rd(&r, 4), 0x68657462); /* hetb */
    uint64_t m;
    while ((m = rd(&r, 4)) == 0x65746200) {
        int id = (int)rd(&r, 2), size = (int)rd(&r, 2);
        uint64_t dlen = rd(&r, 4);
        ck_assert(dlen > 0 && dlen < 100);
        r.p += dlen;
        ck_assert_uint_eq(rd(&r, 4), 0); /* extension */
        ck_assert_uint_eq(rd(&r, 4), 0x65746500);
        ck_assert(id < 256);
        d->sizes[id] = size;
        d->n_types++;
    }
    ck_assert_uint_eq(m, 0x68657465);         /* hete */
    ck_assert_uint_eq(rd(&r, 4), 0x68647265); /* hdre */
    ck_assert_uint_eq(rd(&r, 4), 0x64617462); /* datb */
    const uint8_t *block_end = NULL;
    int buf = 0;
    while (!r.bad) {
        const uint8_t *at = r.p;
        int type = (int)rd(&r, 2);
        if (type == 0xFFFF) {
            d->ended = r.p == r.end;
            break;
        }
        uint64_t t = rd(&r, 8);
        ck_assert_msg(type < 256 && d->sizes[type] >= 0, "event type %d not in the header", type);
        if (type == 18) { /* block marker */
            if (block_end && at != block_end)
                d->blocks_ok = false;
            block_end = at + rd(&r, 4);
            uint64_t end_time = rd(&r, 8);
            buf = rd(&r, 2) == 0xFFFF ? 1 : 0;
            if (end_time < t)
                d->time_order_ok = false;
            d->n_blocks++;
            continue;
        }
        if (block_end == NULL || at >= block_end)
            d->blocks_ok = false;
        if (t < d->last_time[buf])
            d->time_order_ok = false;
        d->last_time[buf] = t;
        size_t size = d->sizes[type] == 0xFFFF ? rd(&r, 2) : (size_t)d->sizes[type];
        if (type == 19 && d->n_user < 16) { /* USER_MSG */
            size_t n = size < 63 ? size : 63;
            memcpy(d->user[d->n_user], r.p, n);
            d->user[d->n_user][n] = '\0';
            d->n_user++;
        }
        d->n_of[type]++;
        if (type == 207 && size == 14) { /* NONMOVING_HEAP_CENSUS: the slot size in bytes */
            Rd c = {r.p, r.p + size, false};
            uint32_t bytes = (uint32_t)rd(&c, 2);
            if (bytes % 8 != 0 || bytes == 0) {
                d->census_sizes_ok = false;
            } else if (d->n_census < 4096) {
                d->census[d->n_census].words = bytes / 8;
                for (int k = 0; k < 3; k++)
                    d->census[d->n_census].v[k] = (uint32_t)rd(&c, 4);
                d->census[d->n_census++].sweep = d->n_of[205];
            }
        }
        r.p += size;
        if (r.p > block_end)
            d->blocks_ok = false;
        d->n_events++;
    }
    ck_assert(!r.bad);
}

uint8_t *eventlog_take_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no event log at %s", path);
    size_t cap = 1 << 20, got;
    uint8_t *log = malloc(cap);
    *len = 0;
    while ((got = fread(log + *len, 1, cap - *len, f)) > 0) {
        *len += got;
        if (*len == cap)
            log = realloc(log, cap *= 2);
    }
    fclose(f);
    unlink(path);
    return log;
}
