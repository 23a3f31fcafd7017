/* proto.c — see proto.h and PROTOCOL.md. */
#include "proto.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "call.h"
#include "msg.h"
#include "mtime.h"
#include "request.h"
#include "summary.h"

/* ---- error codes -------------------------------------------------------- */

/* Each code's name and what a client makes of it (its exit status). */
static const struct {
    const char *name;
    int exit;
} codes[PROTO_ERR_COUNT] = {
    [PROTO_ERR_BUSY] = { "busy", 3 },
    [PROTO_ERR_CLASS_NOT_LOADED] = { "class_not_loaded", 3 },
    [PROTO_ERR_METHOD_NOT_FOUND] = { "method_not_found", 3 },
    [PROTO_ERR_BAD_REGEX] = { "bad_regex", 3 },
    [PROTO_ERR_NOTHING_INSTRUMENTABLE] = { "nothing_instrumentable", 3 },
    [PROTO_ERR_BAD_REQUEST] = { "bad_request", 5 },
    [PROTO_ERR_PROTOCOL] = { "protocol", 5 },
    [PROTO_ERR_UNSUPPORTED] = { "unsupported", 3 },
    [PROTO_ERR_INTERNAL] = { "internal", 5 },
    [PROTO_ERR_DENIED] = { "denied", 2 },
    [PROTO_ERR_PLAN_LIMIT] = { "plan_limit", 3 },
};

const char *proto_code_name(enum proto_code code)
{
    if ((unsigned)code >= PROTO_ERR_COUNT)
        return "internal";
    return codes[code].name;
}

int proto_code_from_name(const char *s)
{
    for (int i = 0; i < PROTO_ERR_COUNT; i++)
        if (strcmp(s, codes[i].name) == 0)
            return i;
    return -1;
}

int proto_code_exit(enum proto_code code)
{
    if ((unsigned)code >= PROTO_ERR_COUNT)
        return codes[PROTO_ERR_INTERNAL].exit;
    return codes[code].exit;
}

enum proto_code proto_code_of_err(int mct_code)
{
    switch (mct_code) {
    case MCT_E_NO_CLASS: return PROTO_ERR_CLASS_NOT_LOADED;
    case MCT_E_NO_METHOD: return PROTO_ERR_METHOD_NOT_FOUND;
    case MCT_E_BAD_REGEX: return PROTO_ERR_BAD_REGEX;
    case MCT_E_NOTHING: return PROTO_ERR_NOTHING_INSTRUMENTABLE;
    case MCT_E_BUSY: return PROTO_ERR_BUSY;
    case MCT_E_ARG: return PROTO_ERR_BAD_REQUEST;
    case MCT_E_UNSUPPORTED: return PROTO_ERR_UNSUPPORTED;
    case MCT_E_LIMIT: return PROTO_ERR_PLAN_LIMIT;
    default: return PROTO_ERR_INTERNAL;
    }
}

/* ---- names and descriptors ---------------------------------------------- */

int proto_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;

    while (p < end) {
        unsigned c = *p++;
        unsigned need, cp;

        if (c == 0)
            return 0;
        if (c < 0x80)
            continue;
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            cp = c & 0x07;
        } else {
            return 0;
        }
        if ((size_t)(end - p) < need)
            return 0;
        for (unsigned i = 0; i < need; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        p += need;
        /* Overlong forms, surrogates, beyond U+10FFFF. */
        if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
            (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
            return 0;
    }
    return 1;
}

int proto_class_name_valid(const char *s)
{
    const char *seg = s;

    for (const char *p = s;; p++) {
        if (*p == '.' || *p == '\0') {
            if (p == seg)
                return 0;
            if (*p == '\0')
                return 1;
            seg = p + 1;
        } else if (*p == ';' || *p == '[' || *p == '/') {
            return 0;
        }
    }
}

int proto_method_name_valid(const char *s)
{
    if (strcmp(s, "<init>") == 0 || strcmp(s, "<clinit>") == 0)
        return 1;
    if (*s == '\0')
        return 0;
    return strpbrk(s, ".;[/<>") == NULL;
}

/* The end of the field type starting at p, or NULL if there is none. */
static const char *field_type_end(const char *p)
{
    int dims = 0;

    while (*p == '[') {
        if (++dims > 255)
            return NULL;
        p++;
    }
    switch (*p) {
    case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
        return p + 1;
    case 'L': {
        const char *seg = ++p;

        for (;; p++) {
            switch (*p) {
            case '\0': case '.': case '[':
                return NULL;
            case ';':
                return p == seg ? NULL : p + 1;
            case '/':
                if (p == seg)
                    return NULL;
                seg = p + 1;
                break;
            default:
                break;
            }
        }
    }
    default:
        return NULL;
    }
}

int proto_method_desc_valid(const char *s)
{
    const char *p = s;

    if (*p++ != '(')
        return 0;
    while (*p != ')') {
        p = field_type_end(p);
        if (p == NULL)
            return 0;
    }
    p++;
    if (*p == 'V')
        p++;
    else if ((p = field_type_end(p)) == NULL)
        return 0;
    return *p == '\0';
}

/* ---- schemas ------------------------------------------------------------ */

enum kind {
    K_STR,          /* string, length in [min, max] bytes */
    K_STR_OR_NULL,  /* as K_STR, or null */
    K_INT,          /* integer in [min, max] */
    K_NUM,          /* number (integer or real) in [min, max] */
    K_BOOL,
    K_OBJ,          /* object checked against sub (any object if sub is NULL) */
    K_OBJ_OR_NULL,  /* as K_OBJ, or null */
    K_ARR,          /* array of objects, each checked against sub */
    K_STRS,         /* array of strings, each of a length in [min, max] bytes */
    K_NONE          /* no key: a place in a table whose row the message does not carry */
};

struct schema;

/* A key of a message, and where msg.h's struct of the message keeps it
 * (slot): K_STR* a const char *, K_INT a long long, K_NUM a double, K_BOOL
 * an int, K_OBJ* the struct of sub (with an int flag at has_at, when set,
 * saying whether it is there), K_ARR a pointer to an array of structs of
 * size bytes and K_STRS one to an array of const char *, with their count
 * (a size_t) at count_at. A key without a slot is not read, and written
 * only when it is a constant (an integer with min == max). */
struct field {
    const char *name;
    enum kind kind;
    int optional;
    long long min, max;
    const struct schema *sub;
    int (*syntax)(const char *s);   /* extra check of a string, or NULL */
    const char *syntax_what;        /* what syntax accepts, for messages */
    int slot;                       /* 1: the struct has it at `at` */
    size_t at, has_at, count_at, size;
    int has;                        /* 1: has_at is set */
};

struct schema {
    const char *what;               /* "trace request", "call node", ... */
    int strict;                     /* keys not listed are errors */
    int scalars_only;               /* keys not listed must be integers or strings */
    const struct field *fields;     /* terminated by a NULL name */
};

/* The last argument, if any, places the key in its struct (AT). */
#define STR(n, lo, hi, ...) { .name = (n), .kind = K_STR, .min = (lo), .max = (hi), __VA_ARGS__ }
#define INT(n, lo, hi, ...) { .name = (n), .kind = K_INT, .min = (lo), .max = (hi), __VA_ARGS__ }
#define BOOL(n, ...) { .name = (n), .kind = K_BOOL, __VA_ARGS__ }
#define OPT_INT(n, lo, hi, ...) { .name = (n), .kind = K_INT, .optional = 1, .min = (lo), .max = (hi), __VA_ARGS__ }
#define OPT_NUM(n, ...) { .name = (n), .kind = K_NUM, .optional = 1, .min = 0, .max = LLONG_MAX, __VA_ARGS__ }
#define AT(type, member) .slot = 1, .at = offsetof(type, member)
#define HAS(type, member) .has = 1, .has_at = offsetof(type, member)
#define COUNT(type, member, item) .count_at = offsetof(type, member), .size = sizeof(item)
#define END { .name = NULL }
#define STR_MAX 65535   /* a class file's longest UTF-8 constant */
#define NS_MAX LLONG_MAX

#define M struct msg_hello_req
static const struct field hello_req_fields[] = {
    INT("protocol", PROTO_VERSION, PROTO_VERSION),
    STR("client", 1, 256, AT(M, client)),
    END
};
#undef M

/* The trace request's keys are request.h's rows: a row without a key
 * gives a K_NONE field, which is neither read, written nor accepted. */
#define REQ_KIND(t) ((t) == REQ_BOOL ? K_BOOL : (t) == REQ_DESC ? K_STR_OR_NULL :                     \
                     (t) == REQ_CLASS || (t) == REQ_METHOD || (t) == REQ_STR ? K_STR : K_INT)
#define REQ_SYNTAX(t) ((t) == REQ_CLASS ? proto_class_name_valid : (t) == REQ_METHOD ? proto_method_name_valid : \
                       (t) == REQ_DESC ? proto_method_desc_valid : NULL)
#define REQ_SYNTAX_WHAT(t) ((t) == REQ_CLASS ? "a binary class name with dots" :                          \
                            (t) == REQ_METHOD ? "a JVM method name" :                                      \
                            (t) == REQ_DESC ? "a JVM method descriptor" : NULL)
#define REQ_KEY(m, type, key, option, sh, lo, hi, wire_lo, none, def, note, where)                       \
    { .name = (key) != NULL ? (const char *)(key) : "",                                                  \
      .kind = (key) != NULL ? REQ_KIND(type) : K_NONE, .optional = ((where) & REQ_SOCKET_OPT) != 0,     \
      .min = (wire_lo), .max = (hi), .syntax = REQ_SYNTAX(type), .syntax_what = REQ_SYNTAX_WHAT(type),   \
      .slot = (key) != NULL, .at = offsetof(struct mct_request, m) },
static const struct field trace_req_fields[] = {
    INT("protocol", PROTO_VERSION, PROTO_VERSION),
    REQ_FIELDS(REQ_KEY)
    END
};
#undef REQ_KEY

static const struct field stop_req_fields[] = {
    STR("reason", 1, 1024, AT(struct msg_stop, reason)),
    END
};

#define M struct msg_jvm
static const struct field jvm_fields[] = {
    STR("name", 0, 4096, AT(M, name)),
    STR("vendor", 0, 4096, AT(M, vendor)),
    STR("version", 0, 4096, AT(M, version)),
    END
};
#undef M
static const struct schema jvm_schema = { "jvm", 0, 0, jvm_fields };

#define M struct msg_session
static const struct field session_fields[] = {
    STR("class", 1, STR_MAX, AT(M, cls)),
    STR("method", 1, STR_MAX, AT(M, method)),
    INT("depth", 1, PROTO_MAX_DEPTH, AT(M, depth)),
    STR("regex", 0, 4096, AT(M, regex)),
    INT("client_pid", 1, INT_MAX, AT(M, client_pid)),
    INT("started_ns", 0, NS_MAX, AT(M, started_ns)),
    INT("calls", 0, LLONG_MAX, AT(M, calls)),
    INT("printed", 0, LLONG_MAX, AT(M, printed)),
    END
};
#undef M
static const struct schema session_schema = { "session", 0, 0, session_fields };

#define M struct msg_hello
static const struct field hello_reply_fields[] = {
    INT("protocol", 1, INT_MAX, AT(M, protocol)),
    STR("agent_version", 1, 256, AT(M, agent_version)),
    INT("pid", 1, INT_MAX, AT(M, pid)),
    { .name = "jvm", .kind = K_OBJ, .sub = &jvm_schema, AT(M, jvm) },
    { .name = "session", .kind = K_OBJ_OR_NULL, .sub = &session_schema, AT(M, session),
      HAS(M, has_session) },
    INT("instrumented_classes", 0, LLONG_MAX, AT(M, instrumented_classes)),
    OPT_INT("loads", 0, LLONG_MAX, AT(M, loads)),
    { .name = "missing_capabilities", .kind = K_STRS, .optional = 1, .min = 1, .max = 256,
      AT(M, missing), COUNT(M, n_missing, const char *) },
    END
};
#undef M

#define M struct msg_plan_method
static const struct field plan_method_fields[] = {
    STR("class", 1, STR_MAX, AT(M, cls)),
    STR("method", 1, STR_MAX, AT(M, method)),
    STR("desc", 1, STR_MAX, AT(M, desc)),
    INT("level", 1, PROTO_MAX_DEPTH, AT(M, level)),
    STR("status", 1, 256, AT(M, status)),
    { .name = "root", .kind = K_BOOL, .optional = 1, AT(M, root) },
    { .name = "reason", .kind = K_STR, .optional = 1, .min = 0, .max = STR_MAX, AT(M, reason) },
    OPT_INT("id", 0, INT_MAX, AT(M, id)),
    END
};
#undef M
static const struct schema plan_method_schema = { "plan method", 0, 0, plan_method_fields };

/* The probes' cost (the agent's probe_calibrate, in ns). */
#define M struct msg_probe
static const struct field probe_fields[] = {
    { .name = "ns", .kind = K_NUM, .min = 0, .max = LLONG_MAX, AT(M, ns) },
    { .name = "measured_ns", .kind = K_NUM, .min = 0, .max = LLONG_MAX, AT(M, measured_ns) },
    { .name = "median_ns", .kind = K_NUM, .min = 0, .max = LLONG_MAX, AT(M, median_ns) },
    { .name = "floor_ns", .kind = K_NUM, .min = 0, .max = LLONG_MAX, AT(M, floor_ns) },
    BOOL("trusted", AT(M, trusted)),
    INT("bursts", 1, INT_MAX, AT(M, bursts)),
    END
};
#undef M
static const struct schema probe_schema = { "probe cost", 0, 0, probe_fields };

#define M struct msg_plan_summary
static const struct field plan_summary_fields[] = {
    INT("instrumented", 0, LLONG_MAX, AT(M, instrumented)),
    INT("pending", 0, LLONG_MAX, AT(M, pending)),
    INT("skipped", 0, LLONG_MAX, AT(M, skipped)),
    INT("failed", 0, LLONG_MAX, AT(M, failed)),
    INT("excluded", 0, LLONG_MAX, AT(M, excluded)),
    INT("planned", 0, LLONG_MAX, AT(M, planned)),
    OPT_INT("trivial", 0, LLONG_MAX, AT(M, trivial)),
    BOOL("capped", AT(M, capped)),
    { .name = "plan_ms", .kind = K_NUM, .min = 0, .max = LLONG_MAX, AT(M, plan_ms) },
    { .name = "instrument_ms", .kind = K_NUM, .min = 0, .max = LLONG_MAX, AT(M, instrument_ms) },
    INT("loaded_classes", 0, LLONG_MAX, AT(M, loaded_classes)),
    STR("clock", 1, 64, AT(M, clock)),
    { .name = "probes", .kind = K_STR, .optional = 1, .min = 1, .max = 64, AT(M, probes) },
    { .name = "probe", .kind = K_OBJ, .optional = 1, .sub = &probe_schema, AT(M, probe),
      HAS(M, has_probe) },
    OPT_INT("callee_classes", 0, LLONG_MAX, AT(M, callee_classes)),
    OPT_INT("matched_classes", 0, LLONG_MAX, AT(M, matched_classes)),
    { .name = "suggestion", .kind = K_STR, .optional = 1, .min = 1, .max = 8192, AT(M, suggestion) },
    OPT_INT("suggestion_matches", 1, LLONG_MAX, AT(M, suggestion_matches)),
    { .name = "receiver", .kind = K_STR, .optional = 1, .min = 1, .max = STR_MAX, AT(M, receiver) },
    END
};
#undef M
static const struct schema plan_summary_schema = { "plan summary", 0, 0, plan_summary_fields };

static const struct field plan_fields[] = {
    { .name = "methods", .kind = K_ARR, .sub = &plan_method_schema, AT(struct msg_plan, methods),
      COUNT(struct msg_plan, n_methods, struct msg_plan_method) },
    { .name = "summary", .kind = K_OBJ, .sub = &plan_summary_schema, AT(struct msg_plan, summary) },
    END
};

/* The call's keys are call_json_check's (protocol/call.h): no field here. */
static const struct field call_fields[] = {
    END
};

static const struct field error_fields[] = {
    STR("code", 1, 64, AT(struct msg_error, name)),
    STR("message", 1, STR_MAX, AT(struct msg_error, message)),
    END
};

/* All but reason are absent from the end a dying JVM sends. */
#define M struct msg_end
static const struct field end_fields[] = {
    STR("reason", 1, 1024, AT(M, reason)),
    OPT_INT("calls", 0, LLONG_MAX, AT(M, calls)),
    OPT_INT("printed", 0, LLONG_MAX, AT(M, printed)),
    OPT_INT("filtered", 0, LLONG_MAX, AT(M, filtered)),
    OPT_INT("seen", 0, LLONG_MAX, AT(M, seen)),
    OPT_INT("dropped", 0, LLONG_MAX, AT(M, dropped)),
    OPT_INT("discarded", 0, LLONG_MAX, AT(M, discarded)),
    OPT_INT("restored_classes", 0, LLONG_MAX, AT(M, restored_classes)),
    OPT_INT("instrumented_classes", 0, LLONG_MAX, AT(M, instrumented_classes)),
    OPT_INT("unloaded_classes", 0, LLONG_MAX, AT(M, unloaded_classes)),
    { .name = "detail", .kind = K_STR, .optional = 1, .min = 0, .max = 1024, AT(M, detail) },
    OPT_NUM("probe_ns", AT(M, probe_ns)),
    { .name = "probe", .kind = K_OBJ, .optional = 1, .sub = &probe_schema, AT(M, probe), HAS(M, has_probe) },
    OPT_INT("warmup", 0, LLONG_MAX, AT(M, warmup)),
    { .name = "warmup_unknown", .kind = K_STR, .optional = 1, .min = 1, .max = 1024, AT(M, warmup_unknown) },
    OPT_INT("not_recompiled", 0, LLONG_MAX, AT(M, not_recompiled)),
    OPT_INT("trace_context_bad", 0, LLONG_MAX, AT(M, trace_context_bad)),
    END
};
#undef M

/* Other keys may come, each an integer or a string. */
#define M struct msg_status
static const struct field status_fields[] = {
    OPT_INT("calls", 0, LLONG_MAX, AT(M, calls)),
    OPT_INT("printed", 0, LLONG_MAX, AT(M, printed)),
    OPT_INT("filtered", 0, LLONG_MAX, AT(M, filtered)),
    OPT_INT("dropped", 0, LLONG_MAX, AT(M, dropped)),
    OPT_INT("seen", 0, LLONG_MAX, AT(M, seen)),
    OPT_INT("instrumented", 0, LLONG_MAX, AT(M, instrumented)),
    OPT_INT("pending", 0, LLONG_MAX, AT(M, pending)),
    OPT_INT("late", 0, LLONG_MAX, AT(M, late)),
    OPT_INT("instrumented_classes", 0, LLONG_MAX, AT(M, instrumented_classes)),
    OPT_INT("unloaded_classes", 0, LLONG_MAX, AT(M, unloaded_classes)),
    { .name = "note", .kind = K_STR, .optional = 1, .min = 0, .max = STR_MAX, AT(M, note) },
    END
};
#undef M

/* The summary's keys are sum_json_check's (check below): no field here. */
static const struct field summary_fields[] = {
    END
};

struct msgdef {
    const char *type;
    enum proto_dir dir;
    struct schema schema;
    int (*check)(const json_t *msg, mct_err *e); /* the whole check, instead of the schema's */
};

static const struct msgdef messages[] = {
    { "hello", PROTO_REQUEST, { "hello request", 1, 0, hello_req_fields }, NULL },
    { "trace", PROTO_REQUEST, { "trace request", 1, 0, trace_req_fields }, NULL },
    { "stop", PROTO_REQUEST, { "stop request", 1, 0, stop_req_fields }, NULL },
    { "hello", PROTO_REPLY, { "hello", 0, 0, hello_reply_fields }, NULL },
    { "plan", PROTO_REPLY, { "plan", 0, 0, plan_fields }, NULL },
    { "call", PROTO_REPLY, { "call", 0, 0, call_fields }, call_json_check },
    { "status", PROTO_REPLY, { "status", 0, 1, status_fields }, NULL },
    { "error", PROTO_REPLY, { "error", 0, 0, error_fields }, NULL },
    { "end", PROTO_REPLY, { "end", 0, 0, end_fields }, NULL },
    { "summary", PROTO_REPLY, { "summary", 0, 0, summary_fields }, sum_json_check },
};

/* ---- validation --------------------------------------------------------- */

/* Where the validator is, as "root.children[2].calls", for messages. */
struct path {
    char buf[160];
    size_t len;
};

static size_t path_push(struct path *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends to the path; returns the length to restore with path_pop. */
static size_t path_push(struct path *p, const char *fmt, ...)
{
    size_t old = p->len;
    va_list ap;
    int n;

    if (p->len < sizeof p->buf - 1) {
        va_start(ap, fmt);
        n = vsnprintf(p->buf + p->len, sizeof p->buf - p->len, fmt, ap);
        va_end(ap);
        if (n > 0)
            p->len += (size_t)n < sizeof p->buf - p->len ? (size_t)n : sizeof p->buf - 1 - p->len;
    }
    return old;
}

static void path_pop(struct path *p, size_t old)
{
    p->len = old;
    p->buf[old] = '\0';
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "unknown";
}

static int bad(mct_err *e, const char *what, const struct path *p, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fails with "<what>: <path>: <problem>". */
static int bad(mct_err *e, const char *what, const struct path *p, const char *fmt, ...)
{
    char problem[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    if (p->len == 0)
        return mct_err_set(e, MCT_E_PROTO, "%s: %s", what, problem);
    return mct_err_set(e, MCT_E_PROTO, "%s: %s: %s", what, p->buf, problem);
}

static int check_object(const json_t *obj, const struct schema *s, struct path *p,
                        int depth, mct_err *e);

static int check_string(const json_t *v, const struct field *f, const char *what,
                        const struct path *p, mct_err *e)
{
    size_t n;

    if (!json_is_string(v))
        return bad(e, what, p, "must be a string, got %s", json_kind(v));
    n = json_string_length(v);
    if ((long long)n < f->min || (long long)n > f->max)
        return bad(e, what, p, "length %zu is outside %lld..%lld bytes", n, f->min, f->max);
    if (strlen(json_string_value(v)) != n)
        return bad(e, what, p, "contains a NUL character");
    if (f->syntax != NULL && !f->syntax(json_string_value(v)))
        return bad(e, what, p, "must be %s", f->syntax_what);
    return 0;
}

static int check_field(const json_t *v, const struct field *f, const char *what,
                       struct path *p, int depth, mct_err *e)
{
    switch (f->kind) {
    case K_STR_OR_NULL:
        if (json_is_null(v))
            return 0;
        /* fall through */
    case K_STR:
        return check_string(v, f, what, p, e);
    case K_INT:
        if (!json_is_integer(v))
            return bad(e, what, p, "must be an integer, got %s", json_kind(v));
        if (json_integer_value(v) < f->min || json_integer_value(v) > f->max)
            return bad(e, what, p, "%lld is outside %lld..%lld",
                       (long long)json_integer_value(v), f->min, f->max);
        return 0;
    case K_NUM:
        if (!json_is_number(v))
            return bad(e, what, p, "must be a number, got %s", json_kind(v));
        if (json_number_value(v) < (double)f->min || json_number_value(v) > (double)f->max)
            return bad(e, what, p, "%g is outside %lld..%lld", json_number_value(v), f->min, f->max);
        return 0;
    case K_BOOL:
        if (!json_is_boolean(v))
            return bad(e, what, p, "must be true or false, got %s", json_kind(v));
        return 0;
    case K_OBJ_OR_NULL:
        if (json_is_null(v))
            return 0;
        /* fall through */
    case K_OBJ:
        if (!json_is_object(v))
            return bad(e, what, p, "must be an object, got %s", json_kind(v));
        return f->sub != NULL ? check_object(v, f->sub, p, depth + 1, e) : 0;
    case K_ARR:
    case K_STRS: {
        size_t i;
        const json_t *item;

        if (!json_is_array(v))
            return bad(e, what, p, "must be an array, got %s", json_kind(v));
        json_array_foreach(v, i, item) {
            size_t old = path_push(p, "[%zu]", i);
            int rc;

            if (f->kind == K_STRS)
                rc = check_string(item, f, what, p, e);
            else if (!json_is_object(item))
                rc = bad(e, what, p, "must be an object, got %s", json_kind(item));
            else
                rc = check_object(item, f->sub, p, depth + 1, e);
            if (rc < 0)
                return -1;
            path_pop(p, old);
        }
        return 0;
    }
    case K_NONE:
        return 0;
    }
    return bad(e, what, p, "unknown field kind");
}

static const struct field *find_field(const struct schema *s, const char *key)
{
    for (const struct field *f = s->fields; f->name != NULL; f++)
        if (f->kind != K_NONE && strcmp(f->name, key) == 0)
            return f;
    return NULL;
}

/* Checks the listed fields of obj, then the keys that are not listed. */
static int check_object(const json_t *obj, const struct schema *s, struct path *p,
                        int depth, mct_err *e)
{
    const char *key;
    const json_t *v;

    if (depth > PROTO_MAX_DEPTH)
        return bad(e, s->what, p, "nested deeper than %d levels", PROTO_MAX_DEPTH);
    for (const struct field *f = s->fields; f->name != NULL; f++) {
        size_t old;

        if (f->kind == K_NONE)
            continue;
        old = path_push(p, "%s%s", p->len ? "." : "", f->name);
        v = json_object_get(obj, f->name);
        if (v == NULL) {
            if (!f->optional)
                return bad(e, s->what, p, "missing");
        } else if (check_field(v, f, s->what, p, depth, e) < 0) {
            return -1;
        }
        path_pop(p, old);
    }
    json_object_foreach((json_t *)obj, key, v) {
        if (depth == 0 && strcmp(key, "type") == 0)
            continue;
        if (find_field(s, key) != NULL)
            continue;
        if (s->strict)
            return bad(e, s->what, p, "unknown key \"%.64s\"", key);
        if (s->scalars_only && !json_is_integer(v) && !json_is_string(v))
            return bad(e, s->what, p, "\"%.64s\" must be an integer or a string, got %s",
                       key, json_kind(v));
    }
    return 0;
}

static const struct msgdef *find_message(const char *type, enum proto_dir dir)
{
    for (size_t i = 0; i < sizeof messages / sizeof messages[0]; i++)
        if (messages[i].dir == dir && strcmp(messages[i].type, type) == 0)
            return &messages[i];
    return NULL;
}

int proto_validate(const json_t *msg, enum proto_dir dir, mct_err *e)
{
    const char *side = dir == PROTO_REQUEST ? "request" : "reply";
    const json_t *type;
    const struct msgdef *def;
    struct path p = { .len = 0 };

    p.buf[0] = '\0';
    if (!json_is_object(msg))
        return mct_err_set(e, MCT_E_PROTO, "%s: must be a JSON object, got %s", side,
                           json_kind(msg));
    type = json_object_get(msg, "type");
    if (type == NULL)
        return mct_err_set(e, MCT_E_PROTO, "%s: missing \"type\"", side);
    if (!json_is_string(type))
        return mct_err_set(e, MCT_E_PROTO, "%s: \"type\" must be a string, got %s", side,
                           json_kind(type));
    def = find_message(json_string_value(type), dir);
    if (def == NULL)
        return mct_err_set(e, MCT_E_PROTO, "%s: unknown message type \"%.64s\"", side,
                           json_string_value(type));
    if (def->check != NULL)
        return def->check(msg, e);
    return check_object(msg, &def->schema, &p, 0, e);
}

const char *proto_type(const json_t *msg)
{
    return json_string_value(json_object_get(msg, "type"));
}

/* ---- messages to and from their structs (msg.h) ------------------------ */

/* A slot's value is copied in and out with memcpy: the struct's member has
 * the type the field's kind says (struct field), which the bytes here do
 * not. */
static void slot_get(const void *base, size_t at, void *v, size_t n)
{
    memcpy(v, (const char *)base + at, n);
}

static void slot_put(void *base, size_t at, const void *v, size_t n)
{
    memcpy((char *)base + at, v, n);
}

static int write_fields(json_t *o, const struct schema *s, const void *base);

/* The JSON value of field f of the struct at base; *skip when an optional
 * key is absent. NULL on failure (out of memory, a string not UTF-8). */
static json_t *write_field(const struct field *f, const void *base, int *skip)
{
    const char *str;
    long long n;
    double d;
    int flag;
    size_t count;

    *skip = 0;
    if (!f->slot) {
        *skip = !(f->kind == K_INT && f->min == f->max);
        return *skip ? NULL : json_integer((json_int_t)f->min);
    }
    switch (f->kind) {
    case K_STR:
    case K_STR_OR_NULL:
        slot_get(base, f->at, &str, sizeof str);
        if (str == NULL && f->kind == K_STR_OR_NULL)
            return json_null();
        *skip = str == NULL && f->optional;
        return str != NULL ? json_string(str) : NULL;
    case K_INT:
        slot_get(base, f->at, &n, sizeof n);
        *skip = n < 0 && f->optional;
        return json_integer((json_int_t)n);
    case K_NUM:
        slot_get(base, f->at, &d, sizeof d);
        *skip = d < 0 && f->optional;
        return json_real(d);
    case K_BOOL:
        slot_get(base, f->at, &flag, sizeof flag);
        return json_boolean(flag);
    case K_OBJ:
    case K_OBJ_OR_NULL: {
        json_t *o;

        flag = 1;
        if (f->has)
            slot_get(base, f->has_at, &flag, sizeof flag);
        if (!flag && f->kind == K_OBJ_OR_NULL)
            return json_null();
        *skip = !flag;
        if (!flag || (o = json_object()) == NULL)
            return NULL;
        if (write_fields(o, f->sub, (const char *)base + f->at) < 0) {
            json_decref(o);
            return NULL;
        }
        return o;
    }
    case K_ARR:
    case K_STRS: {
        const char *items;
        json_t *a = json_array();

        slot_get(base, f->at, &items, sizeof items);
        slot_get(base, f->count_at, &count, sizeof count);
        for (size_t i = 0; a != NULL && i < count; i++) {
            json_t *v;

            if (f->kind == K_STRS) {
                slot_get(items, i * f->size, &str, sizeof str);
                v = json_string(str);
            } else if ((v = json_object()) != NULL &&
                       write_fields(v, f->sub, items + i * f->size) < 0) {
                json_decref(v);
                v = NULL;
            }
            if (json_array_append_new(a, v) < 0) {
                json_decref(a);
                a = NULL;
            }
        }
        return a;
    }
    case K_NONE:
        *skip = 1;
        return NULL;
    }
    return NULL;
}

/* Sets the keys of schema s from the struct at base into o, in the order
 * of the schema; 0 or -1. */
static int write_fields(json_t *o, const struct schema *s, const void *base)
{
    for (const struct field *f = s->fields; f->name != NULL; f++) {
        int skip;
        json_t *v = write_field(f, base, &skip);

        if (skip) {
            json_decref(v);
            continue;
        }
        if (v == NULL || json_object_set_new(o, f->name, v) < 0)
            return -1;
    }
    return 0;
}

json_t *proto_msg_write(const char *type, enum proto_dir dir, const void *m)
{
    const struct msgdef *def = find_message(type, dir);
    json_t *o = json_object();

    if (def == NULL || o == NULL || json_object_set_new(o, "type", json_string(type)) < 0 ||
        write_fields(o, &def->schema, m) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Reads the keys of schema s from o, which passed check_object, into the
 * struct at base; absent keys as msg.h says. 0, or -1 with e set when out
 * of memory (arrays allocated so far stay in the struct). */
static int read_fields(const json_t *o, const struct schema *s, void *base, mct_err *e)
{
    for (const struct field *f = s->fields; f->name != NULL; f++) {
        const json_t *v = json_object_get(o, f->name);
        const char *str;
        long long n;
        double d;
        int flag;

        if (!f->slot)
            continue;
        switch (f->kind) {
        case K_STR:
        case K_STR_OR_NULL:
            str = json_string_value(v);
            slot_put(base, f->at, &str, sizeof str);
            break;
        case K_INT:
            n = v != NULL ? (long long)json_integer_value(v) : -1;
            slot_put(base, f->at, &n, sizeof n);
            break;
        case K_NUM:
            d = v != NULL ? json_number_value(v) : -1;
            slot_put(base, f->at, &d, sizeof d);
            break;
        case K_BOOL:
            flag = json_is_true(v);
            slot_put(base, f->at, &flag, sizeof flag);
            break;
        case K_OBJ:
        case K_OBJ_OR_NULL:
            flag = json_is_object(v);
            if (f->has)
                slot_put(base, f->has_at, &flag, sizeof flag);
            if (flag && read_fields(v, f->sub, (char *)base + f->at, e) < 0)
                return -1;
            break;
        case K_ARR:
        case K_STRS: {
            size_t count = json_array_size(v);
            char *items = count > 0 ? calloc(count, f->size) : NULL;

            if (count > 0 && items == NULL)
                return mct_err_set(e, MCT_E_NOMEM, "no memory for %zu items of \"%s\"", count, f->name);
            slot_put(base, f->at, &items, sizeof items);
            slot_put(base, f->count_at, &count, sizeof count);
            for (size_t i = 0; i < count; i++) {
                const json_t *item = json_array_get(v, i);

                if (f->kind == K_STRS) {
                    str = json_string_value(item);
                    slot_put(items, i * f->size, &str, sizeof str);
                } else if (read_fields(item, f->sub, items + i * f->size, e) < 0) {
                    return -1;
                }
            }
            break;
        }
        case K_NONE:
            break;
        }
    }
    return 0;
}

int proto_msg_read(const json_t *msg, const char *type, enum proto_dir dir, void *m, size_t size,
                   mct_err *e)
{
    memset(m, 0, size);
    if (proto_validate(msg, dir, e) < 0)
        return -1;
    if (strcmp(proto_type(msg), type) != 0)
        return mct_err_set(e, MCT_E_PROTO, "expected a \"%s\" %s, got a \"%.64s\"", type,
                           dir == PROTO_REQUEST ? "request" : "reply", proto_type(msg));
    return read_fields(msg, &find_message(type, dir)->schema, m, e);
}

/* ---- frames ------------------------------------------------------------- */

/* The payload cap for messages travelling in direction dir. */
static size_t proto_max_payload(enum proto_dir dir)
{
    return dir == PROTO_REQUEST ? PROTO_MAX_REQUEST : PROTO_MAX_REPLY;
}

void proto_header_encode(unsigned char hdr[PROTO_HEADER_LEN], uint32_t len)
{
    hdr[0] = 'M';
    hdr[1] = 'C';
    hdr[2] = 'T';
    hdr[3] = PROTO_VERSION;
    hdr[4] = (unsigned char)(len >> 24);
    hdr[5] = (unsigned char)(len >> 16);
    hdr[6] = (unsigned char)(len >> 8);
    hdr[7] = (unsigned char)len;
}

int proto_header_decode(const unsigned char hdr[PROTO_HEADER_LEN], enum proto_dir dir,
                        uint32_t *len, mct_err *e)
{
    uint32_t n;

    if (hdr[0] != 'M' || hdr[1] != 'C' || hdr[2] != 'T')
        return mct_err_set(e, MCT_E_PROTO,
                           "bad magic %02x %02x %02x (want 'MCT'): the peer does not speak "
                           "the mcalltree protocol", hdr[0], hdr[1], hdr[2]);
    if (hdr[3] != PROTO_VERSION)
        return mct_err_set(e, MCT_E_UNSUPPORTED,
                           "protocol version %u, this side speaks version %d", hdr[3],
                           PROTO_VERSION);
    n = (uint32_t)hdr[4] << 24 | (uint32_t)hdr[5] << 16 | (uint32_t)hdr[6] << 8 | hdr[7];
    if (n == 0)
        return mct_err_set(e, MCT_E_PROTO, "empty payload");
    if (n > proto_max_payload(dir))
        return mct_err_set(e, MCT_E_TOOBIG, "payload of %u bytes exceeds the %zu-byte cap of a %s",
                           n, proto_max_payload(dir), dir == PROTO_REQUEST ? "request" : "reply");
    *len = n;
    return 0;
}

json_t *proto_parse(const char *payload, size_t len, enum proto_dir dir, mct_err *e)
{
    json_error_t jerr;
    json_t *msg;

    msg = json_loadb(payload, len, JSON_REJECT_DUPLICATES, &jerr);
    if (msg == NULL) {
        mct_err_set(e, MCT_E_PROTO, "invalid JSON at byte %d: %s", jerr.position, jerr.text);
        return NULL;
    }
    if (proto_validate(msg, dir, e) < 0) {
        json_decref(msg);
        return NULL;
    }
    return msg;
}

json_t *proto_decode(const void *frame, size_t n, enum proto_dir dir, mct_err *e)
{
    const unsigned char *b = frame;
    uint32_t len;

    if (n < PROTO_HEADER_LEN) {
        mct_err_set(e, MCT_E_PROTO, "truncated header: %zu of %d bytes", n, PROTO_HEADER_LEN);
        return NULL;
    }
    if (proto_header_decode(b, dir, &len, e) < 0)
        return NULL;
    if (n - PROTO_HEADER_LEN < len) {
        mct_err_set(e, MCT_E_PROTO, "truncated payload: %zu of %u bytes",
                    n - PROTO_HEADER_LEN, len);
        return NULL;
    }
    if (n - PROTO_HEADER_LEN > len) {
        mct_err_set(e, MCT_E_PROTO, "%zu bytes after the end of the frame",
                    n - PROTO_HEADER_LEN - len);
        return NULL;
    }
    return proto_parse((const char *)b + PROTO_HEADER_LEN, len, dir, e);
}

/* ---- I/O ---------------------------------------------------------------- */

/* Writes all of iov[0..n), advancing it; sendmsg with MSG_NOSIGNAL on
 * sockets, writev on anything else. stall_ms < 0: blocking writes (a socket's
 * SO_SNDTIMEO applies). Else a socket is written without blocking: the peer
 * must take a byte at least every stall_ms, and all within total_ms when
 * total_ms > 0. */
static int write_iov(int fd, struct iovec *iov, int n, long long stall_ms, long long total_ms, mct_err *e)
{
    long long now = mct_now_ms(), stall_at = now + stall_ms;
    long long end_at = total_ms > 0 ? now + total_ms : LLONG_MAX;
    int sock = 1;

    while (n > 0) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        ssize_t w;

        if (sock) {
            struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };

            w = sendmsg(fd, &mh, MSG_NOSIGNAL | (stall_ms >= 0 ? MSG_DONTWAIT : 0));
            if (w < 0 && errno == ENOTSOCK) {
                sock = 0;
                continue;
            }
        } else {
            w = writev(fd, iov, n);
        }
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if ((errno == EAGAIN || errno == EWOULDBLOCK) && stall_ms < 0)
                return mct_err_set(e, MCT_E_IO, "write timed out: the peer is not reading");
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return mct_err_set(e, MCT_E_IO, "write: %s", strerror(errno));
            now = mct_now_ms();
            if (now >= stall_at || now >= end_at)
                return mct_err_set(e, MCT_E_IO, "the peer took %s for %lld ms",
                                   now >= stall_at ? "no byte" : "not all", now >= stall_at ? stall_ms : total_ms);
            if (poll(&pfd, 1, (int)((stall_at < end_at ? stall_at : end_at) - now)) < 0 && errno != EINTR)
                return mct_err_set(e, MCT_E_IO, "poll: %s", strerror(errno));
            continue;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
        stall_at = mct_now_ms() + stall_ms;
    }
    return 0;
}

/* One frame of len bytes of json, written as write_iov says. */
static int write_frame(int fd, const char *json, size_t len, long long stall_ms, long long total_ms,
                       mct_err *e)
{
    unsigned char hdr[PROTO_HEADER_LEN];
    struct iovec iov[2];

    if (len == 0 || len > PROTO_MAX_REPLY)
        return mct_err_set(e, MCT_E_TOOBIG, "message of %zu bytes is outside 1..%zu", len,
                           PROTO_MAX_REPLY);
    proto_header_encode(hdr, (uint32_t)len);
    iov[0].iov_base = hdr;
    iov[0].iov_len = sizeof hdr;
    iov[1].iov_base = (void *)json;
    iov[1].iov_len = len;
    return write_iov(fd, iov, 2, stall_ms, total_ms, e);
}

int proto_write_payload(int fd, const char *json, size_t len, mct_err *e)
{
    return write_frame(fd, json, len, -1, 0, e);
}

int proto_write_within(int fd, const json_t *msg, long long stall_ms, long long total_ms, mct_err *e)
{
    char *s;
    int rc;

    s = json_dumps(msg, JSON_COMPACT);
    if (s == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "cannot render a message");
    rc = write_frame(fd, s, strlen(s), stall_ms, total_ms, e);
    free(s);
    return rc;
}

int proto_write(int fd, const json_t *msg, mct_err *e)
{
    return proto_write_within(fd, msg, -1, 0, e);
}

int proto_write_frames_within(int fd, const void *frames, size_t len, long long stall_ms, long long total_ms,
                              mct_err *e)
{
    struct iovec iov = { .iov_base = (void *)frames, .iov_len = len };

    return len == 0 ? 0 : write_iov(fd, &iov, 1, stall_ms, total_ms, e);
}

/* What proto_rbuf_fill reads at least at a time. */
#define RBUF_CHUNK ((size_t)256 * 1024)

int proto_rbuf_fill(proto_rbuf *b, int fd, enum proto_dir dir, mct_err *e)
{
    mct_buf *d = &b->buf;
    size_t want = RBUF_CHUNK;
    ssize_t r;

    if (b->start == d->len) {
        buf_reset(d);
        b->start = 0;
    }
    if (d->len - b->start >= PROTO_HEADER_LEN) {
        uint32_t len;

        /* A frame bigger than a chunk is read whole; its header was checked. */
        if (proto_header_decode(d->data + b->start, dir, &len, e) == 0 && len + PROTO_HEADER_LEN > want)
            want = len + PROTO_HEADER_LEN;
    }
    if (d->cap - d->len < want / 2 && b->start > 0) {
        memmove(d->data, d->data + b->start, d->len - b->start);
        d->len -= b->start;
        b->start = 0;
    }
    if ((d->cap - d->len < want / 2 || d->cap < want) && buf_reserve(d, want) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "no memory for %zu bytes of messages", d->len + want);
    r = read(fd, d->data + d->len, d->cap - d->len);
    if (r < 0) {
        if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
            return 1;
        return mct_err_set(e, MCT_E_IO, "read: %s", strerror(errno));
    }
    if (r > 0) {
        d->len += (size_t)r;
        return 1;
    }
    if (d->len == b->start) {
        mct_err_set(e, MCT_E_EOF, "the peer closed the connection");
    } else if (d->len - b->start < PROTO_HEADER_LEN) {
        mct_err_set(e, MCT_E_CUT, "truncated header: %zu of %d bytes", d->len - b->start, PROTO_HEADER_LEN);
    } else {
        uint32_t len = buf_get_u4(d->data + b->start + 4);

        mct_err_set(e, MCT_E_CUT, "truncated payload: %zu of %u bytes", d->len - b->start - PROTO_HEADER_LEN, len);
    }
    return 0;
}

int proto_rbuf_next(proto_rbuf *b, enum proto_dir dir, const unsigned char **payload, uint32_t *len,
                    mct_err *e)
{
    const mct_buf *d = &b->buf;

    if (d->len - b->start < PROTO_HEADER_LEN)
        return 0;
    if (proto_header_decode(d->data + b->start, dir, len, e) < 0)
        return -1;
    if (d->len - b->start - PROTO_HEADER_LEN < *len)
        return 0;
    *payload = d->data + b->start + PROTO_HEADER_LEN;
    b->start += PROTO_HEADER_LEN + (size_t)*len;
    return 1;
}

size_t proto_rbuf_held(const proto_rbuf *b)
{
    return b->buf.len - b->start;
}

void proto_rbuf_free(proto_rbuf *b)
{
    buf_free(&b->buf);
    b->start = 0;
}

/* Reads n bytes into buf before the deadline (< 0: none); *got says how
 * many arrived. 0 when all arrived or the peer closed (*got < n), else -1. */
static int read_full(int fd, void *buf, size_t n, long long deadline, size_t *got,
                     int timeout_ms, mct_err *e)
{
    *got = 0;
    while (*got < n) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int wait_ms = -1, rc;
        ssize_t r;

        if (deadline >= 0) {
            long long left = deadline - mct_now_ms();

            wait_ms = left > 0 ? (int)(left < INT_MAX ? left : INT_MAX) : 0;
        }
        rc = poll(&pfd, 1, wait_ms);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            return mct_err_set(e, MCT_E_IO, "poll: %s", strerror(errno));
        }
        if (rc == 0 && deadline >= 0 && mct_now_ms() >= deadline)
            return mct_err_set(e, MCT_E_IO, "timed out after %d ms waiting for a message",
                               timeout_ms);
        if (rc == 0)
            continue;
        r = read(fd, (char *)buf + *got, n - *got);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            return mct_err_set(e, MCT_E_IO, "read: %s", strerror(errno));
        }
        if (r == 0)
            return 0;
        *got += (size_t)r;
    }
    return 0;
}

char *proto_read_payload(int fd, enum proto_dir dir, int timeout_ms, uint32_t *len_out, mct_err *e)
{
    long long deadline = timeout_ms < 0 ? -1 : mct_now_ms() + timeout_ms;
    unsigned char hdr[PROTO_HEADER_LEN];
    uint32_t len;
    size_t got;
    char *payload;

    if (read_full(fd, hdr, sizeof hdr, deadline, &got, timeout_ms, e) < 0)
        return NULL;
    if (got == 0) {
        mct_err_set(e, MCT_E_EOF, "the peer closed the connection");
        return NULL;
    }
    if (got < sizeof hdr) {
        mct_err_set(e, MCT_E_CUT, "truncated header: %zu of %d bytes", got, PROTO_HEADER_LEN);
        return NULL;
    }
    if (proto_header_decode(hdr, dir, &len, e) < 0)
        return NULL;
    payload = malloc(len);
    if (payload == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "no memory for a payload of %u bytes", len);
        return NULL;
    }
    if (read_full(fd, payload, len, deadline, &got, timeout_ms, e) < 0) {
        free(payload);
        return NULL;
    }
    if (got < len) {
        mct_err_set(e, MCT_E_CUT, "truncated payload: %zu of %u bytes", got, len);
        free(payload);
        return NULL;
    }
    *len_out = len;
    return payload;
}

json_t *proto_read(int fd, enum proto_dir dir, int timeout_ms, mct_err *e)
{
    uint32_t len;
    char *payload = proto_read_payload(fd, dir, timeout_ms, &len, e);
    json_t *msg = payload != NULL ? proto_parse(payload, len, dir, e) : NULL;

    free(payload);
    return msg;
}

/* ---- strings ------------------------------------------------------------ */

void proto_utf8_sanitize(char *s)
{
    size_t n = strlen(s);

    for (size_t i = 0; i < n; i++) {
        size_t len = 1;
        unsigned char c = (unsigned char)s[i];

        if (c < 0x80)
            continue;
        len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
        if (len > n - i || !proto_utf8_valid(s + i, len))
            s[i] = '?';
        else
            i += len - 1;
    }
}
