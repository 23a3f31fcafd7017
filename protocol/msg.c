/* msg.c — see msg.h. The writers put the keys in the order PROTOCOL.md
 * shows them; the readers trust the schema check they begin with for the
 * presence and the type of every required key. */
#include "msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ------------------------------------------------------------ */

/* Builds an object key by key; the first failure (out of memory, a string
 * that is not UTF-8: its json_t is NULL) sticks and makes done() fail. */
struct out {
    json_t *o;
    int failed;
};

static struct out out_new(const char *type)
{
    struct out w = { json_object(), 0 };

    w.failed = w.o == NULL;
    if (type != NULL && !w.failed && json_object_set_new(w.o, "type", json_string(type)) < 0)
        w.failed = 1;
    return w;
}

/* Sets key to v (stolen, may be NULL). */
static void put(struct out *w, const char *key, json_t *v)
{
    if (w->failed || v == NULL || json_object_set_new(w->o, key, v) < 0) {
        json_decref(v);
        w->failed = 1;
    }
}

static void put_str(struct out *w, const char *key, const char *s)
{
    put(w, key, json_string(s));
}

static void put_int(struct out *w, const char *key, long long n)
{
    put(w, key, json_integer((json_int_t)n));
}

/* An optional integer: written when >= 0. */
static void put_opt_int(struct out *w, const char *key, long long n)
{
    if (n >= 0)
        put_int(w, key, n);
}

/* An optional string: written when not NULL. */
static void put_opt_str(struct out *w, const char *key, const char *s)
{
    if (s != NULL)
        put_str(w, key, s);
}

/* The object, or NULL (freed) when anything failed. */
static json_t *done(struct out *w)
{
    if (w->failed) {
        json_decref(w->o);
        return NULL;
    }
    return w->o;
}

json_t *msg_hello_req_write(const struct msg_hello_req *m)
{
    struct out w = out_new("hello");

    put_int(&w, "protocol", PROTO_VERSION);
    put_str(&w, "client", m->client);
    return done(&w);
}

json_t *msg_trace_write(const struct msg_trace *m)
{
    struct out w = out_new("trace");

    put_int(&w, "protocol", PROTO_VERSION);
    put_str(&w, "class", m->cls);
    put_str(&w, "method", m->method);
    put(&w, "desc", m->desc != NULL ? json_string(m->desc) : json_null());
    put_int(&w, "depth", m->depth);
    put_str(&w, "regex", m->regex);
    put(&w, "include_jdk", json_boolean(m->include_jdk));
    put(&w, "plan_only", json_boolean(m->plan_only));
    put_int(&w, "min_ns", m->min_ns);
    put_int(&w, "count", m->count);
    put(&w, "verbose", json_boolean(m->verbose));
    put_int(&w, "client_pid", m->client_pid);
    return done(&w);
}

json_t *msg_stop_write(const struct msg_stop *m)
{
    struct out w = out_new("stop");

    put_str(&w, "reason", m->reason);
    return done(&w);
}

static json_t *session_write(const struct msg_session *m)
{
    struct out w = out_new(NULL);

    put_str(&w, "class", m->cls);
    put_str(&w, "method", m->method);
    put_int(&w, "depth", m->depth);
    put_str(&w, "regex", m->regex);
    put_int(&w, "client_pid", m->client_pid);
    put_int(&w, "started_ns", m->started_ns);
    put_int(&w, "calls", m->calls);
    put_int(&w, "printed", m->printed);
    return done(&w);
}

json_t *msg_hello_write(const struct msg_hello *m)
{
    struct out w = out_new("hello"), jvm = out_new(NULL);
    json_t *missing = json_array();

    put_int(&w, "protocol", m->protocol);
    put_str(&w, "agent_version", m->agent_version);
    put_int(&w, "pid", m->pid);
    put_str(&jvm, "name", m->jvm_name);
    put_str(&jvm, "vendor", m->jvm_vendor);
    put_str(&jvm, "version", m->jvm_version);
    put(&w, "jvm", done(&jvm));
    put(&w, "session", m->has_session ? session_write(&m->session) : json_null());
    put_int(&w, "instrumented_classes", m->instrumented_classes);
    put_opt_int(&w, "loads", m->loads);
    for (size_t i = 0; missing != NULL && i < m->n_missing; i++)
        if (json_array_append_new(missing, json_string(m->missing[i])) < 0)
            w.failed = 1;
    put(&w, "missing_capabilities", missing);
    return done(&w);
}

/* The probe object (bursts > 0). */
static json_t *probe_write(const struct msg_probe *p)
{
    struct out w = out_new(NULL);

    put(&w, "ns", json_real(p->ns));
    put(&w, "measured_ns", json_real(p->measured_ns));
    put(&w, "median_ns", json_real(p->median_ns));
    put(&w, "floor_ns", json_real(p->floor_ns));
    put(&w, "trusted", json_boolean(p->trusted));
    put_int(&w, "bursts", p->bursts);
    return done(&w);
}

static json_t *plan_method_write(const struct msg_plan_method *m)
{
    struct out w = out_new(NULL);

    put_str(&w, "class", m->cls);
    put_str(&w, "method", m->method);
    put_str(&w, "desc", m->desc);
    put_int(&w, "level", m->level);
    put_str(&w, "status", m->status);
    put(&w, "root", json_boolean(m->root));
    put_opt_str(&w, "reason", m->reason);
    put_opt_int(&w, "id", m->id);
    return done(&w);
}

static json_t *plan_summary_write(const struct msg_plan_summary *s)
{
    struct out w = out_new(NULL);

    put_int(&w, "instrumented", s->instrumented);
    put_int(&w, "pending", s->pending);
    put_int(&w, "skipped", s->skipped);
    put_int(&w, "failed", s->failed);
    put_int(&w, "excluded", s->excluded);
    put_int(&w, "planned", s->planned);
    put(&w, "capped", json_boolean(s->capped));
    put(&w, "plan_ms", json_real(s->plan_ms));
    put(&w, "instrument_ms", json_real(s->instrument_ms));
    put_int(&w, "loaded_classes", s->loaded_classes);
    put_str(&w, "clock", s->clock);
    if (s->probe.bursts > 0)
        put(&w, "probe", probe_write(&s->probe));
    put_opt_int(&w, "callee_classes", s->callee_classes);
    put_opt_int(&w, "matched_classes", s->matched_classes);
    put_opt_str(&w, "suggestion", s->suggestion);
    put_opt_int(&w, "suggestion_matches", s->suggestion_matches);
    put_opt_str(&w, "receiver", s->receiver);
    return done(&w);
}

json_t *msg_plan_write(const struct msg_plan *m)
{
    struct out w = out_new("plan");
    json_t *methods = json_array();

    for (size_t i = 0; methods != NULL && i < m->n_methods; i++)
        if (json_array_append_new(methods, plan_method_write(&m->methods[i])) < 0)
            w.failed = 1;
    put(&w, "methods", methods);
    put(&w, "summary", plan_summary_write(&m->summary));
    return done(&w);
}

json_t *msg_status_write(const struct msg_status *m)
{
    struct out w = out_new("status");

    put_opt_int(&w, "calls", m->calls);
    put_opt_int(&w, "printed", m->printed);
    put_opt_int(&w, "filtered", m->filtered);
    put_opt_int(&w, "dropped", m->dropped);
    put_opt_int(&w, "instrumented", m->instrumented);
    put_opt_int(&w, "pending", m->pending);
    put_opt_int(&w, "late", m->late);
    put_opt_int(&w, "instrumented_classes", m->instrumented_classes);
    put_opt_int(&w, "unloaded_classes", m->unloaded_classes);
    put_opt_str(&w, "note", m->note);
    return done(&w);
}

void msg_end_init(struct msg_end *m, const char *reason)
{
    *m = (struct msg_end){
        .reason = reason, .calls = -1, .printed = -1, .filtered = -1, .dropped = -1,
        .discarded = -1, .restored_classes = -1, .instrumented_classes = -1,
        .unloaded_classes = -1,
    };
}

json_t *msg_end_write(const struct msg_end *m)
{
    struct out w = out_new("end");

    put_str(&w, "reason", m->reason);
    put_opt_int(&w, "calls", m->calls);
    put_opt_int(&w, "printed", m->printed);
    put_opt_int(&w, "filtered", m->filtered);
    put_opt_int(&w, "dropped", m->dropped);
    put_opt_int(&w, "discarded", m->discarded);
    put_opt_int(&w, "restored_classes", m->restored_classes);
    put_opt_int(&w, "instrumented_classes", m->instrumented_classes);
    put_opt_int(&w, "unloaded_classes", m->unloaded_classes);
    put_opt_str(&w, "detail", m->detail);
    if (m->probe.bursts > 0) {
        put(&w, "probe_ns", json_real(m->probe.ns));
        put(&w, "probe", probe_write(&m->probe));
    }
    return done(&w);
}

json_t *msg_error_write(const struct msg_error *m)
{
    struct out w = out_new("error");
    char text[1024];

    snprintf(text, sizeof text, "%s", m->message != NULL ? m->message : "");
    proto_utf8_sanitize(text);
    if (text[0] == '\0')
        snprintf(text, sizeof text, "%s", proto_code_name(m->code));
    put_str(&w, "code", proto_code_name(m->code));
    put_str(&w, "message", text);
    return done(&w);
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

/* ---- reading ------------------------------------------------------------ */

/* Checks that msg is a valid message of type and direction dir. */
static int expect(const json_t *msg, enum proto_dir dir, const char *type, mct_err *e)
{
    if (proto_validate(msg, dir, e) < 0)
        return -1;
    if (strcmp(proto_type(msg), type) != 0)
        return mct_err_set(e, MCT_E_PROTO, "expected a \"%s\" %s, got a \"%.64s\"", type,
                           dir == PROTO_REQUEST ? "request" : "reply", proto_type(msg));
    return 0;
}

/* A string, or NULL when absent or null. */
static const char *get_str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* An integer; -1 when absent (every integer of the protocol is >= 0). */
static long long get_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return v != NULL ? (long long)json_integer_value(v) : -1;
}

static double get_num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static int get_bool(const json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

int msg_hello_req_read(const json_t *msg, struct msg_hello_req *m, mct_err *e)
{
    if (expect(msg, PROTO_REQUEST, "hello", e) < 0)
        return -1;
    m->client = get_str(msg, "client");
    return 0;
}

int msg_trace_read(const json_t *msg, struct msg_trace *m, mct_err *e)
{
    if (expect(msg, PROTO_REQUEST, "trace", e) < 0)
        return -1;
    *m = (struct msg_trace){
        .cls = get_str(msg, "class"),
        .method = get_str(msg, "method"),
        .desc = get_str(msg, "desc"),
        .depth = (int)get_int(msg, "depth"),
        .regex = get_str(msg, "regex"),
        .include_jdk = get_bool(msg, "include_jdk"),
        .plan_only = get_bool(msg, "plan_only"),
        .verbose = get_bool(msg, "verbose"),
        .min_ns = get_int(msg, "min_ns"),
        .count = get_int(msg, "count"),
        .client_pid = get_int(msg, "client_pid"),
    };
    return 0;
}

int msg_stop_read(const json_t *msg, struct msg_stop *m, mct_err *e)
{
    if (expect(msg, PROTO_REQUEST, "stop", e) < 0)
        return -1;
    m->reason = get_str(msg, "reason");
    return 0;
}

int msg_hello_read(const json_t *msg, struct msg_hello *m, mct_err *e)
{
    const json_t *jvm = json_object_get(msg, "jvm");
    const json_t *session = json_object_get(msg, "session");
    const json_t *missing = json_object_get(msg, "missing_capabilities");

    memset(m, 0, sizeof *m);
    if (expect(msg, PROTO_REPLY, "hello", e) < 0)
        return -1;
    m->protocol = (int)get_int(msg, "protocol");
    m->agent_version = get_str(msg, "agent_version");
    m->pid = get_int(msg, "pid");
    m->jvm_name = get_str(jvm, "name");
    m->jvm_vendor = get_str(jvm, "vendor");
    m->jvm_version = get_str(jvm, "version");
    m->has_session = json_is_object(session);
    if (m->has_session)
        m->session = (struct msg_session){
            .cls = get_str(session, "class"),
            .method = get_str(session, "method"),
            .depth = (int)get_int(session, "depth"),
            .regex = get_str(session, "regex"),
            .client_pid = get_int(session, "client_pid"),
            .started_ns = get_int(session, "started_ns"),
            .calls = get_int(session, "calls"),
            .printed = get_int(session, "printed"),
        };
    m->instrumented_classes = get_int(msg, "instrumented_classes");
    m->loads = get_int(msg, "loads");
    if (json_array_size(missing) > 0) {
        const char **names = calloc(json_array_size(missing), sizeof *names);

        if (names == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "no memory for the agent's hello");
        for (size_t i = 0; i < json_array_size(missing); i++)
            names[i] = json_string_value(json_array_get(missing, i));
        m->missing = names;
        m->n_missing = json_array_size(missing);
    }
    return 0;
}

void msg_hello_clear(struct msg_hello *m)
{
    free((void *)m->missing);
    memset(m, 0, sizeof *m);
}

/* The probe object p, or bursts 0 when p is NULL. */
static struct msg_probe probe_read(const json_t *p)
{
    if (p == NULL)
        return (struct msg_probe){ .bursts = 0 };
    return (struct msg_probe){
        .ns = get_num(p, "ns"),
        .measured_ns = get_num(p, "measured_ns"),
        .median_ns = get_num(p, "median_ns"),
        .floor_ns = get_num(p, "floor_ns"),
        .trusted = get_bool(p, "trusted"),
        .bursts = (int)get_int(p, "bursts"),
    };
}

int msg_plan_read(const json_t *msg, struct msg_plan *m, mct_err *e)
{
    const json_t *methods = json_object_get(msg, "methods");
    const json_t *s = json_object_get(msg, "summary");
    struct msg_plan_method *ms;
    size_t n;

    memset(m, 0, sizeof *m);
    if (expect(msg, PROTO_REPLY, "plan", e) < 0)
        return -1;
    n = json_array_size(methods);
    ms = calloc(n > 0 ? n : 1, sizeof *ms);
    if (ms == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "no memory for a plan of %zu methods", n);
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(methods, i);

        ms[i] = (struct msg_plan_method){
            .cls = get_str(o, "class"),
            .method = get_str(o, "method"),
            .desc = get_str(o, "desc"),
            .level = (int)get_int(o, "level"),
            .status = get_str(o, "status"),
            .root = get_bool(o, "root"),
            .id = get_int(o, "id"),
            .reason = get_str(o, "reason"),
        };
    }
    m->methods = ms;
    m->n_methods = n;
    m->summary = (struct msg_plan_summary){
        .instrumented = get_int(s, "instrumented"),
        .pending = get_int(s, "pending"),
        .skipped = get_int(s, "skipped"),
        .failed = get_int(s, "failed"),
        .excluded = get_int(s, "excluded"),
        .planned = get_int(s, "planned"),
        .capped = get_bool(s, "capped"),
        .plan_ms = get_num(s, "plan_ms"),
        .instrument_ms = get_num(s, "instrument_ms"),
        .loaded_classes = get_int(s, "loaded_classes"),
        .clock = get_str(s, "clock"),
        .probe = probe_read(json_object_get(s, "probe")),
        .callee_classes = get_int(s, "callee_classes"),
        .matched_classes = get_int(s, "matched_classes"),
        .suggestion = get_str(s, "suggestion"),
        .suggestion_matches = get_int(s, "suggestion_matches"),
        .receiver = get_str(s, "receiver"),
    };
    return 0;
}

void msg_plan_clear(struct msg_plan *m)
{
    free((void *)m->methods);
    memset(m, 0, sizeof *m);
}

int msg_status_read(const json_t *msg, struct msg_status *m, mct_err *e)
{
    if (expect(msg, PROTO_REPLY, "status", e) < 0)
        return -1;
    *m = (struct msg_status){
        .calls = get_int(msg, "calls"),
        .printed = get_int(msg, "printed"),
        .filtered = get_int(msg, "filtered"),
        .dropped = get_int(msg, "dropped"),
        .instrumented = get_int(msg, "instrumented"),
        .pending = get_int(msg, "pending"),
        .late = get_int(msg, "late"),
        .instrumented_classes = get_int(msg, "instrumented_classes"),
        .unloaded_classes = get_int(msg, "unloaded_classes"),
        .note = get_str(msg, "note"),
    };
    return 0;
}

int msg_end_read(const json_t *msg, struct msg_end *m, mct_err *e)
{
    if (expect(msg, PROTO_REPLY, "end", e) < 0)
        return -1;
    *m = (struct msg_end){
        .reason = get_str(msg, "reason"),
        .detail = get_str(msg, "detail"),
        .calls = get_int(msg, "calls"),
        .printed = get_int(msg, "printed"),
        .filtered = get_int(msg, "filtered"),
        .dropped = get_int(msg, "dropped"),
        .discarded = get_int(msg, "discarded"),
        .restored_classes = get_int(msg, "restored_classes"),
        .instrumented_classes = get_int(msg, "instrumented_classes"),
        .unloaded_classes = get_int(msg, "unloaded_classes"),
        .probe = probe_read(json_object_get(msg, "probe")),
    };
    return 0;
}

int msg_error_read(const json_t *msg, struct msg_error *m, mct_err *e)
{
    int code;

    if (expect(msg, PROTO_REPLY, "error", e) < 0)
        return -1;
    m->name = get_str(msg, "code");
    m->message = get_str(msg, "message");
    code = proto_code_from_name(m->name);
    m->code = code >= 0 ? (enum proto_code)code : PROTO_ERR_INTERNAL;
    return 0;
}
