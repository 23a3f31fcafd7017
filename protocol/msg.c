/* msg.c — see msg.h. The keys, their checks and their members are the
 * schemas of proto.c; what is here gives each message its type, and does
 * what a schema cannot say (an error's code, its text made safe). */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The writer and the reader of a message that the schema says all of:
 * msg_NAME_write and msg_NAME_read of struct msg_NAME, type TYPE. */
#define PLAIN_MESSAGE(name, type, dir)                                                     \
    json_t *msg_##name##_write(const struct msg_##name *m)                                \
    {                                                                                      \
        return proto_msg_write(type, dir, m);                                              \
    }                                                                                      \
    int msg_##name##_read(const json_t *msg, struct msg_##name *m, mct_err *e)            \
    {                                                                                      \
        return proto_msg_read(msg, type, dir, m, sizeof *m, e);                            \
    }

PLAIN_MESSAGE(hello_req, "hello", PROTO_REQUEST)
PLAIN_MESSAGE(stop, "stop", PROTO_REQUEST)
PLAIN_MESSAGE(hello, "hello", PROTO_REPLY)
PLAIN_MESSAGE(plan, "plan", PROTO_REPLY)
PLAIN_MESSAGE(status, "status", PROTO_REPLY)
PLAIN_MESSAGE(end, "end", PROTO_REPLY)

json_t *msg_trace_write(const struct mct_request *m)
{
    return proto_msg_write("trace", PROTO_REQUEST, m);
}

int msg_trace_read(const json_t *msg, struct mct_request *m, mct_err *e)
{
    if (proto_msg_read(msg, "trace", PROTO_REQUEST, m, sizeof *m, e) < 0)
        return -1;
    req_init_off_wire(m);
    return 0;
}

void msg_hello_clear(struct msg_hello *m)
{
    free((void *)m->missing);
    memset(m, 0, sizeof *m);
}

void msg_plan_clear(struct msg_plan *m)
{
    free((void *)m->methods);
    memset(m, 0, sizeof *m);
}

void msg_end_init(struct msg_end *m, const char *reason)
{
    *m = (struct msg_end){
        .reason = reason, .calls = -1, .printed = -1, .filtered = -1, .dropped = -1, .seen = -1,
        .discarded = -1, .restored_classes = -1, .instrumented_classes = -1,
        .unloaded_classes = -1, .probe_ns = -1, .warmup = -1, .not_recompiled = -1,
        .trace_context_bad = -1,
    };
}

json_t *msg_error_write(const struct msg_error *m)
{
    char text[1024];

    snprintf(text, sizeof text, "%s", m->message != NULL ? m->message : "");
    proto_utf8_sanitize(text);
    if (text[0] == '\0')
        snprintf(text, sizeof text, "%s", proto_code_name(m->code));
    return proto_msg_write("error", PROTO_REPLY, &(struct msg_error){
        .code = m->code, .name = proto_code_name(m->code), .message = text });
}

json_t *msg_error_new(enum proto_code code, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return msg_error_write(&(struct msg_error){ .code = code, .message = text });
}

int msg_error_read(const json_t *msg, struct msg_error *m, mct_err *e)
{
    int code;

    if (proto_msg_read(msg, "error", PROTO_REPLY, m, sizeof *m, e) < 0)
        return -1;
    code = proto_code_from_name(m->name);
    m->code = code >= 0 ? (enum proto_code)code : PROTO_ERR_INTERNAL;
    return 0;
}

json_t *msg_start_write(const struct msg_start *m)
{
    return json_pack("{s:s, s:I, s:s, s:s, s:s}", "type", "start", "pid", (json_int_t)m->pid, "vm", m->vm,
                     "version", m->version, "entry", m->entry);
}

json_t *msg_gate_write(int passed, json_t *failures, json_t *gates)
{
    return json_pack("{s:s, s:b, s:o, s:o*}", "type", "gate", "passed", passed, "failures", failures, "gates",
                     gates);
}

json_t *msg_end_line_write(const char *reason)
{
    return json_pack("{s:s, s:s}", "type", "end", "reason", reason);
}

void msg_end_mark_unloaded(json_t *end)
{
    json_object_set_new(end, "entry_loaded", json_false());
}

void msg_end_set_reason(json_t *end, const char *reason)
{
    json_object_set_new(end, "reason", json_string(reason));
    json_object_del(end, "detail");
}

json_t *msg_with_pid(const json_t *msg, long long pid)
{
    json_t *tagged = json_copy((json_t *)msg);

    if (tagged == NULL || json_object_set_new(tagged, "pid", json_integer(pid)) < 0) {
        json_decref(tagged);
        return NULL;
    }
    return tagged;
}
