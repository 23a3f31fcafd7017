/* fuzz_proto.c — the protocol decoder and validator on arbitrary bytes, in
 * both directions: nothing may crash or leak, every error has a message, and
 * an accepted message survives rendering and decoding again unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decodes data as a frame of direction dir and checks the invariants. */
static void one_direction(const uint8_t *data, size_t size, enum proto_dir dir)
{
    json_t *msg, *again;
    mct_err e;
    char *text;

    mct_err_clear(&e);
    msg = proto_decode(data, size, dir, &e);
    if (msg == NULL) {
        if (e.code == MCT_OK || e.msg[0] == '\0' || strlen(e.msg) >= sizeof e.msg)
            abort();
        return;
    }
    if (proto_type(msg) == NULL)
        abort();
    text = json_dumps(msg, JSON_COMPACT);
    if (text == NULL)
        abort();
    again = proto_parse(text, strlen(text), dir, &e);
    if (again == NULL || !json_equal(msg, again))
        abort();
    json_decref(again);
    free(text);
    json_decref(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mct_err e;
    json_t *msg;

    one_direction(data, size, PROTO_REQUEST);
    one_direction(data, size, PROTO_REPLY);
    /* The bytes as a bare payload, so that the fuzzer reaches the JSON and
     * schema checks without having to discover the header. */
    msg = proto_parse((const char *)data, size, PROTO_REQUEST, &e);
    json_decref(msg);
    msg = proto_parse((const char *)data, size, PROTO_REPLY, &e);
    json_decref(msg);
    return 0;
}
