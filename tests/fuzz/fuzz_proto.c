/* fuzz_proto.c — the protocol decoder and validator on arbitrary bytes, in
 * both directions: nothing may crash or leak, every error has a message, an
 * accepted message survives rendering and decoding again unchanged, and the
 * typed reader of its type (msg.h) takes it; what its writer makes of the
 * struct is valid and comes out of a second read and write unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads msg with the typed reader of its type and writes the struct again;
 * NULL for a type without one (call). Aborts when the reader refuses a
 * valid message or the writer fails. */
static json_t *typed(const json_t *msg, enum proto_dir dir)
{
    const char *type = proto_type(msg);
    json_t *out = NULL;
    mct_err e;
    int rc = -1;

    if (dir == PROTO_REQUEST && strcmp(type, "hello") == 0) {
        struct msg_hello_req m;

        if ((rc = msg_hello_req_read(msg, &m, &e)) == 0)
            out = msg_hello_req_write(&m);
    } else if (dir == PROTO_REQUEST && strcmp(type, "trace") == 0) {
        struct mct_request m;

        if ((rc = msg_trace_read(msg, &m, &e)) == 0)
            out = msg_trace_write(&m);
    } else if (dir == PROTO_REQUEST && strcmp(type, "stop") == 0) {
        struct msg_stop m;

        if ((rc = msg_stop_read(msg, &m, &e)) == 0)
            out = msg_stop_write(&m);
    } else if (strcmp(type, "hello") == 0) {
        struct msg_hello m;

        if ((rc = msg_hello_read(msg, &m, &e)) == 0)
            out = msg_hello_write(&m);
        msg_hello_clear(&m);
    } else if (strcmp(type, "plan") == 0) {
        struct msg_plan m;

        if ((rc = msg_plan_read(msg, &m, &e)) == 0)
            out = msg_plan_write(&m);
        msg_plan_clear(&m);
    } else if (strcmp(type, "status") == 0) {
        struct msg_status m;

        if ((rc = msg_status_read(msg, &m, &e)) == 0)
            out = msg_status_write(&m);
    } else if (strcmp(type, "end") == 0) {
        struct msg_end m;

        if ((rc = msg_end_read(msg, &m, &e)) == 0)
            out = msg_end_write(&m);
    } else if (strcmp(type, "error") == 0) {
        struct msg_error m;

        if ((rc = msg_error_read(msg, &m, &e)) == 0)
            out = msg_error_write(&m);
    } else {
        return NULL;
    }
    if (rc < 0 || out == NULL)
        abort();
    return out;
}

/* The typed round trip of a valid message (see the top). */
static void check_typed(const json_t *msg, enum proto_dir dir)
{
    json_t *once = typed(msg, dir), *twice;
    mct_err e;

    if (once == NULL)
        return;
    if (proto_validate(once, dir, &e) < 0)
        abort();
    twice = typed(once, dir);
    if (twice == NULL || !json_equal(once, twice))
        abort();
    json_decref(twice);
    json_decref(once);
}

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
    check_typed(msg, dir);
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
    if (msg != NULL)
        check_typed(msg, PROTO_REQUEST);
    json_decref(msg);
    msg = proto_parse((const char *)data, size, PROTO_REPLY, &e);
    if (msg != NULL)
        check_typed(msg, PROTO_REPLY);
    json_decref(msg);
    return 0;
}
