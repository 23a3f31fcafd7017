/* fuzz_reader.c — the one reader of a session's replies (reader.h) on
 * arbitrary bytes, as the client reads its socket: a stream of frames (an
 * 8-byte header, then the payload), a compact call frame to
 * reader_compact, any other payload parsed as a reply and given to
 * reader_json, in order, into one table of methods and with a judge (a
 * max-calls gate), as on one connection. Nothing may crash or leak, every
 * refusal has a message, every call read reaches its callback and the
 * judge, and the judge gives a verdict at the end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_call(void *ctx, const call_tab *t, const mct_call *c)
{
    (void)t;
    if (c->n_nodes == 0)
        abort();
    (*(long long *)ctx)++;
    return 0;
}

static const struct reader_cb cb = { .on_call = on_call };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char maxtext[] = "t.R.find=4";
    struct gates_max_calls m = {0};
    struct gates g = { .prefix = "", .class_name = "t.E", .method = "run", .desc = "()V", .max_calls = &m,
                       .n_max_calls = 1 };
    call_tab tab = {0};
    mct_call call = {0};
    long long calls = 0;
    json_t *failures;
    replies *judge;
    size_t pos = 0;
    reader rd;
    mct_err e;

    if (gates_parse_max_calls("", maxtext, &m, &e) < 0 || (judge = replies_new(&g, 0, -1, &e)) == NULL)
        abort();
    reader_init(&rd, &tab, &call, judge, &cb, &calls);
    while (size - pos >= PROTO_HEADER_LEN) {
        const unsigned char *p;
        uint32_t len;
        json_t *msg;
        int rc;

        mct_err_clear(&e);
        if (proto_header_decode(data + pos, PROTO_REPLY, &len, &e) < 0 || size - pos - PROTO_HEADER_LEN < len)
            break;
        p = data + pos + PROTO_HEADER_LEN;
        pos += PROTO_HEADER_LEN + len;
        if (reader_is_compact(p, len)) {
            rc = reader_compact(&rd, p, len, &e);
        } else {
            msg = proto_parse((const char *)p, len, PROTO_REPLY, &e);
            rc = msg == NULL ? -1 : reader_json(&rd, msg, &e);
            json_decref(msg);
        }
        if (rc < 0 && (e.code == MCT_OK || e.msg[0] == '\0'))
            abort();
        if (rc > 0)
            abort();
    }
    if (replies_counts(judge).seen != calls)
        abort();
    failures = json_array();
    if (failures == NULL || replies_verdict(judge, failures, &e) < -1)
        abort();
    json_decref(failures);
    replies_free(judge);
    call_free(&call);
    call_tab_free(&tab);
    return 0;
}
