/* fuzz_crec.c — the client's decoder of compact calls (crec.h) on arbitrary
 * bytes: the input is a stream of frames as the agent sends them (an 8-byte
 * header, then the payload), decoded in order into one table of methods as
 * on one connection. Nothing may crash or leak, every refusal has a
 * message, and an accepted call renders (crec_json_line) as one line of
 * JSON that parses to exactly the object crec_call_json builds. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crec.h"
#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_call(const crec_tab *t, const crec_call *c)
{
    crec_text x = {0};
    json_t *obj = crec_call_json(t, c), *line;

    if (obj == NULL || crec_json_line(&x, t, c) < 0 || x.len == 0 || x.p[x.len - 1] != '\n' ||
        memchr(x.p, '\n', x.len - 1) != NULL)
        abort();
    line = json_loadb(x.p, x.len - 1, JSON_REJECT_DUPLICATES, NULL);
    if (line == NULL || !json_equal(line, obj))
        abort();
    json_decref(line);
    json_decref(obj);
    crec_text_free(&x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    crec_tab tab = {0};
    crec_call call = {0};
    size_t pos = 0;

    while (size - pos >= PROTO_HEADER_LEN) {
        uint32_t len;
        mct_err e;
        int rc;

        mct_err_clear(&e);
        if (proto_header_decode(data + pos, PROTO_REPLY, &len, &e) < 0 || size - pos - PROTO_HEADER_LEN < len)
            break;
        pos += PROTO_HEADER_LEN;
        rc = crec_decode(&tab, &call, data + pos, len, &e);
        pos += len;
        if (rc < 0) {
            if (e.code == MCT_OK || e.msg[0] == '\0')
                abort();
            continue;
        }
        if (rc == CREC_CALL)
            check_call(&tab, &call);
        else if (rc != CREC_DEF)
            abort();
    }
    crec_call_free(&call);
    crec_tab_free(&tab);
    return 0;
}
