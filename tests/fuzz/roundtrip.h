/* roundtrip.h — what the fuzz targets of the call model (fuzz_tree,
 * fuzz_crec, fuzz_calljson) demand of every call they got accepted: its
 * two encodings hold the same call. Its JSON line is one line of JSON that
 * the reader takes back to the same line, and its compact frames decode to
 * the same line; anything else aborts. */
#ifndef MCT_FUZZ_ROUNDTRIP_H
#define MCT_FUZZ_ROUNDTRIP_H

#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "proto.h"

/* The line of c after a trip through the compact encoding (fresh
 * definitions, decoded into a fresh table), into out. */
static inline void roundtrip_compact(const call_tab *t, const mct_call *c, mct_buf *out)
{
    mct_buf b = {0};
    call_defs d = {0};
    call_tab t2 = {0};
    mct_call c2 = {0};
    size_t pos = 0;
    int last = -1;

    if (call_encode(&b, t, &d, c) < 0)
        abort();
    while (pos < b.len) {
        uint32_t len;
        mct_err e;

        if (proto_header_decode(b.data + pos, PROTO_REPLY, &len, &e) < 0 || b.len - pos - PROTO_HEADER_LEN < len)
            abort();
        last = call_decode(&t2, &c2, b.data + pos + PROTO_HEADER_LEN, len, &e);
        if (last < 0)
            abort();
        pos += PROTO_HEADER_LEN + len;
    }
    if (last != CALL_REC || call_json_line(out, &t2, &c2) < 0)
        abort();
    call_free(&c2);
    call_tab_free(&t2);
    call_defs_free(&d);
    buf_free(&b);
}

/* The line of c after a trip through its JSON line and the reader. */
static inline void roundtrip_json(const mct_buf *line, mct_buf *out)
{
    json_t *j;
    call_tab t2 = {0};
    mct_call c2 = {0};
    mct_err e;

    if (line->len == 0 || line->data[line->len - 1] != '\n' || memchr(line->data, '\n', line->len - 1) != NULL)
        abort();
    j = json_loadb((const char *)line->data, line->len - 1, JSON_REJECT_DUPLICATES, NULL);
    if (j == NULL || call_from_json(&t2, &c2, j, &e) < 0 || call_json_line(out, &t2, &c2) < 0)
        abort();
    json_decref(j);
    call_free(&c2);
    call_tab_free(&t2);
}

/* Aborts unless c (methods in t) passes call_check and both trips give
 * back its line. */
static inline void roundtrip_check(const call_tab *t, const mct_call *c)
{
    mct_buf line = {0}, a = {0}, b = {0};
    mct_err e;

    if (call_check(t, c, &e) < 0 || call_json_line(&line, t, c) < 0)
        abort();
    roundtrip_compact(t, c, &a);
    roundtrip_json(&line, &b);
    if (a.len != line.len || memcmp(a.data, line.data, line.len) != 0 || b.len != line.len ||
        memcmp(b.data, line.data, line.len) != 0)
        abort();
    buf_free(&line);
    buf_free(&a);
    buf_free(&b);
}

#endif
