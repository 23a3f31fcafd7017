/* msg.c — see msg.h. The keys, their checks and their members are the
 * schemas of proto.c; what is here gives each message its type, and does
 * what a schema cannot say (an error's code, its text made safe). */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *msg_hello_req_write(const struct msg_hello_req *m)
{
    return proto_msg_write("hello", PROTO_REQUEST, m);
}

int msg_hello_req_read(const json_t *msg, struct msg_hello_req *m, mct_err *e)
{
    return proto_msg_read(msg, "hello", PROTO_REQUEST, m, sizeof *m, e);
}

json_t *msg_trace_write(const struct msg_trace *m)
{
    return proto_msg_write("trace", PROTO_REQUEST, m);
}

int msg_trace_read(const json_t *msg, struct msg_trace *m, mct_err *e)
{
    return proto_msg_read(msg, "trace", PROTO_REQUEST, m, sizeof *m, e);
}

json_t *msg_stop_write(const struct msg_stop *m)
{
    return proto_msg_write("stop", PROTO_REQUEST, m);
}

int msg_stop_read(const json_t *msg, struct msg_stop *m, mct_err *e)
{
    return proto_msg_read(msg, "stop", PROTO_REQUEST, m, sizeof *m, e);
}

json_t *msg_hello_write(const struct msg_hello *m)
{
    return proto_msg_write("hello", PROTO_REPLY, m);
}

int msg_hello_read(const json_t *msg, struct msg_hello *m, mct_err *e)
{
    return proto_msg_read(msg, "hello", PROTO_REPLY, m, sizeof *m, e);
}

void msg_hello_clear(struct msg_hello *m)
{
    free((void *)m->missing);
    memset(m, 0, sizeof *m);
}

json_t *msg_plan_write(const struct msg_plan *m)
{
    return proto_msg_write("plan", PROTO_REPLY, m);
}

int msg_plan_read(const json_t *msg, struct msg_plan *m, mct_err *e)
{
    return proto_msg_read(msg, "plan", PROTO_REPLY, m, sizeof *m, e);
}

void msg_plan_clear(struct msg_plan *m)
{
    free((void *)m->methods);
    memset(m, 0, sizeof *m);
}

json_t *msg_status_write(const struct msg_status *m)
{
    return proto_msg_write("status", PROTO_REPLY, m);
}

int msg_status_read(const json_t *msg, struct msg_status *m, mct_err *e)
{
    return proto_msg_read(msg, "status", PROTO_REPLY, m, sizeof *m, e);
}

void msg_end_init(struct msg_end *m, const char *reason)
{
    *m = (struct msg_end){
        .reason = reason, .calls = -1, .printed = -1, .filtered = -1, .dropped = -1,
        .discarded = -1, .restored_classes = -1, .instrumented_classes = -1,
        .unloaded_classes = -1, .probe_ns = -1,
    };
}

json_t *msg_end_write(const struct msg_end *m)
{
    return proto_msg_write("end", PROTO_REPLY, m);
}

int msg_end_read(const json_t *msg, struct msg_end *m, mct_err *e)
{
    return proto_msg_read(msg, "end", PROTO_REPLY, m, sizeof *m, e);
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
