/* request.h — the trace request: what to trace and how. One struct for
 * every form a request takes (the command line, the agent's option string
 * -agentpath:...=trace=..., the socket's `trace` message, a startup trace)
 * and one table of its fields, REQ_FIELDS: each row names the member, its
 * type, its JSON key, its option name (--NAME on the command line, NAME in
 * the option string), its bounds and default, and where it may be given.
 *
 * Both wire encodings come from the rows: the `trace` message's schema
 * (proto.c expands REQ_FIELDS; msg_trace_write / msg_trace_read) and the
 * option string (req_optstr_write here, read item by item with req_set by
 * agent/session/options.c). Every check of a value given by a person (the
 * command line's, the option string's) is req_set over the row's bounds, the
 * same bounds the socket message is validated against. A new field is a
 * member, a row, and its use. */
#ifndef MCT_REQUEST_H
#define MCT_REQUEST_H

#include <limits.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "gates.h"
#include "proto.h"
#include "summary.h"

#define REQ_NAME_MAX 1024       /* longest class, method name or descriptor */
#define REQ_TEXT_MAX 4096       /* longest regex or file name */
#define REQ_MS_MAX 1000000000LL /* longest duration a person gives, in ms */
#define REQ_NS_PER_MS 1000000LL
#define REQ_ASYNC_WAIT_MAX 60000LL /* longest --async-wait, in ms */
#define REQ_ASYNC_WAIT_DEF 2000LL  /* --async-wait when not given */
#define REQ_ARGS_LEN_MAX 1024   /* most characters of a String argument kept (--args-len) */
#define REQ_ARGS_LEN_DEFAULT 64

/* The gates a request carries (the command line's, a startup trace's):
 * their texts borrowed like the request's strings. */
struct req_max_calls {
    struct gates_max_calls item[GATES_MAX];
    size_t n;
};

struct req_budgets {
    struct gates_budget item[GATES_MAX];
    size_t n;
};

/* A trace request. Strings are borrowed (from argv, from the option
 * string's owner, from the JSON read); desc is NULL for every overload. An
 * integer member is its row's `none` when not given. */
struct mct_request {
    const char *cls;            /* binary class name with dots */
    const char *method;         /* JVM method name */
    const char *desc;           /* its descriptor, NULL for every overload */
    long long depth;            /* 1..PROTO_MAX_DEPTH */
    const char *regex;          /* callee classes, Java-style, whole names */
    const char *out;            /* a startup trace's file; "{pid}" is the JVM's pid */
    int include_jdk;            /* booleans, 0 or 1 */
    int plan_only;
    long long min_ns;           /* only calls at least this long are sent */
    long long count;            /* end after this many calls; 0 = no limit */
    int verbose;
    long long client_pid;       /* > 0 */
    int aggregate;              /* summaries instead of calls */
    long long interval_ms;      /* a summary every so often; -1 (or 0): only the final one */
    long long slowest;          /* calls kept whole per summary; -1: not given */
    int wait;                   /* an entry class not loaded yet is waited for */
    long long sample;           /* trace one entry call in this many; -1: every one */
    struct req_max_calls max_calls;
    double percentile;          /* the gates' percentile, 0 < P <= 100; 0 = unset */
    double fail_over_ms;        /* the limit of a call or of that percentile; < 0 = unset */
    struct req_budgets budgets;
    int include_warmup;         /* warm-up calls go into summaries and gates too */
    long long min_calls;        /* calls enough for a timing gate's percentile; 0 = unset */
    int compact;                /* calls as compact records (crec.h) */
    int cpu;                    /* each node's CPU time too */
    int alloc;                  /* each node's bytes allocated too */
    int follow_async;           /* tasks handed to other threads are traced there */
    int skip_trivial;           /* trivial methods are left as they are (agent trivial.h) */
    long long async_wait_ms;    /* how long a call waits for its tasks; -1: not given */
    struct req_max_calls max_alloc; /* the max-alloc gates: bytes in one entry call */
    int args;                   /* the entry method's arguments on each call printed or kept */
    long long args_len;         /* characters of a String argument kept */
    const char *trace_context;  /* where a call's W3C trace parent is read: CLASS.FIELD or
                                   REQ_TRACE_CONTEXT_OTEL; NULL: none */
    unsigned long given;        /* the rows a parser set: 1UL << REQ_ROW_<member> */
};

/* A field's type: what a person writes, what the struct and the wire hold. */
enum req_type {
    REQ_CLASS,      /* string: a binary class name with dots */
    REQ_METHOD,     /* string: a JVM method name */
    REQ_DESC,       /* string or null: a JVM method descriptor */
    REQ_STR,        /* string of min..max bytes (UTF-8) */
    REQ_BOOL,       /* a flag: given, or not */
    REQ_INT,        /* integer in min..max */
    REQ_MS,         /* milliseconds as a decimal; the member and the wire hold ns */
    REQ_SEC,        /* seconds as a decimal; the member and the wire hold ms */
    REQ_PERCENTILE, /* a number over 0, at most 100 (gates.h) */
    REQ_LIMIT_MS,   /* milliseconds as a decimal, >= 0, kept as a double (gates.h) */
    REQ_MAX_CALLS,  /* a gate list: CLASS.METHOD=N, repeatable (gates.h: max-calls, max-alloc) */
    REQ_BUDGETS     /* a gate list: CLASS.METHOD:STAT=MS, repeatable (gates.h) */
};

/* Where a field may be given (a row's `where`). */
enum {
    REQ_SOCKET = 1 << 0,     /* a key of the `trace` message, required */
    REQ_SOCKET_OPT = 1 << 1, /* a key of the `trace` message, optional (older clients); absent: none */
    REQ_CLI = 1 << 2,        /* an option of the command line, --NAME */
    REQ_AGENT = 1 << 3,      /* an item of the agent's option string, with trace= */
    REQ_AGENT_WIDE = 1 << 4  /* written into the option string, where the agent reads it as
                                its own option, trace or not (options.h) */
};

#define REQ_SOCKET_ANY (REQ_SOCKET | REQ_SOCKET_OPT)

/* The rows, in the order of both encodings (the message's keys, the option
 * string's items):
 *   X(member, type, key, option, short, min, max, wire_lo, none, def, note, where)
 * key: the JSON key, NULL when not on the socket; option: the name a
 * person gives it by, NULL for none (the entry method: positional on the
 * command line, trace=CLASS.METHOD in the option string; the depth is
 * positional on the command line too, hence not REQ_CLI); short: the
 * command line's one-letter form, or 0. min..max bound an integer in the
 * member's unit (ns for REQ_MS, ms for REQ_SEC) and a string's length;
 * wire_lo <= min is the least value on the wire (below min: none); none is
 * the member's value when not given, def its value in a startup trace that
 * does not give it (req_startup_defaults); note follows the minimum in
 * messages. */
#define REQ_FIELDS(X)                                                                                           \
    X(cls, REQ_CLASS, "class", NULL, 0, 1, REQ_NAME_MAX, 1, 0, 0, "", REQ_SOCKET)                              \
    X(method, REQ_METHOD, "method", NULL, 0, 1, REQ_NAME_MAX, 1, 0, 0, "", REQ_SOCKET)                         \
    X(desc, REQ_DESC, "desc", NULL, 0, 3, REQ_NAME_MAX, 3, 0, 0, "", REQ_SOCKET)                               \
    X(depth, REQ_INT, "depth", "depth", 0, 1, PROTO_MAX_DEPTH, 1, 0, 3, "", REQ_SOCKET | REQ_AGENT)            \
    X(regex, REQ_STR, "regex", "regex", 0, 1, REQ_TEXT_MAX, 0, 0, 0, "", REQ_SOCKET | REQ_AGENT)               \
    X(out, REQ_STR, NULL, "out", 0, 1, REQ_TEXT_MAX, 1, 0, 0, "", REQ_AGENT)                                   \
    X(include_jdk, REQ_BOOL, "include_jdk", "include-jdk", 0, 0, 1, 0, 0, 0, "",                               \
      REQ_SOCKET | REQ_CLI | REQ_AGENT)                                                                        \
    X(plan_only, REQ_BOOL, "plan_only", "plan", 0, 0, 1, 0, 0, 0, "", REQ_SOCKET | REQ_CLI)                    \
    X(min_ns, REQ_MS, "min_ns", "min-ms", 0, 0, REQ_MS_MAX * REQ_NS_PER_MS, 0, 0, 0, "",                       \
      REQ_SOCKET | REQ_CLI | REQ_AGENT)                                                                        \
    X(count, REQ_INT, "count", "count", 'n', 1, LLONG_MAX, 0, 0, 0, "", REQ_SOCKET | REQ_CLI | REQ_AGENT)      \
    X(verbose, REQ_BOOL, "verbose", "verbose", 'v', 0, 1, 0, 0, 0, "", REQ_SOCKET | REQ_CLI | REQ_AGENT_WIDE)  \
    X(client_pid, REQ_INT, "client_pid", NULL, 0, 1, INT_MAX, 1, 0, 0, "", REQ_SOCKET)                         \
    X(aggregate, REQ_BOOL, "aggregate", "aggregate", 0, 0, 1, 0, 0, 0, "",                                     \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(interval_ms, REQ_SEC, "interval_ms", "interval", 0, 1, REQ_MS_MAX, 0, -1, -1, "",                        \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(slowest, REQ_INT, "slowest", "slowest", 0, 0, SUM_SLOWEST_MAX, 0, -1, -1, "",                            \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(wait, REQ_BOOL, "wait", "wait", 0, 0, 1, 0, 0, 1, "", REQ_SOCKET_OPT | REQ_CLI)                          \
    X(sample, REQ_INT, "sample", "sample", 0, 1, 1000000000LL, 1, -1, -1, " (every call)",                     \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(max_calls, REQ_MAX_CALLS, NULL, "max-calls", 0, 0, GATES_MAX, 0, 0, 0, "", REQ_CLI | REQ_AGENT)          \
    X(percentile, REQ_PERCENTILE, NULL, "percentile", 0, 0, 100, 0, 0, 0, "", REQ_CLI | REQ_AGENT)             \
    X(fail_over_ms, REQ_LIMIT_MS, NULL, "fail-over-ms", 0, 0, REQ_MS_MAX, 0, -1, -1, "", REQ_CLI | REQ_AGENT)  \
    X(budgets, REQ_BUDGETS, NULL, "budget", 0, 0, GATES_MAX, 0, 0, 0, "", REQ_CLI | REQ_AGENT)                 \
    X(include_warmup, REQ_BOOL, "include_warmup", "include-warmup", 0, 0, 1, 0, 0, 0, "",                      \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(min_calls, REQ_INT, NULL, "min-calls", 0, 1, LLONG_MAX, 0, 0, 0, "", REQ_CLI | REQ_AGENT)                \
    X(compact, REQ_BOOL, "compact", NULL, 0, 0, 1, 0, 0, 0, "", REQ_SOCKET_OPT)                                \
    X(cpu, REQ_BOOL, "cpu", "cpu", 0, 0, 1, 0, 0, 0, "", REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                 \
    X(alloc, REQ_BOOL, "alloc", "alloc", 0, 0, 1, 0, 0, 0, "", REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)           \
    X(follow_async, REQ_BOOL, "follow_async", "follow-async", 0, 0, 1, 0, 0, 0, "",                            \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(async_wait_ms, REQ_INT, "async_wait_ms", "async-wait", 0, 0, REQ_ASYNC_WAIT_MAX, 0, -1, -1, "",          \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(max_alloc, REQ_MAX_CALLS, NULL, "max-alloc", 0, 0, GATES_MAX, 0, 0, 0, "", REQ_CLI | REQ_AGENT)          \
    X(args, REQ_BOOL, "args", "args", 0, 0, 1, 0, 0, 0, "", REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)              \
    X(args_len, REQ_INT, "args_len", "args-len", 0, 1, REQ_ARGS_LEN_MAX, 1, REQ_ARGS_LEN_DEFAULT,              \
      REQ_ARGS_LEN_DEFAULT, "", REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                         \
    X(trace_context, REQ_STR, "trace_context", "trace-context", 0, 1, REQ_TEXT_MAX, 1, 0, 0, "",               \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)                                                                    \
    X(skip_trivial, REQ_BOOL, "skip_trivial", "skip-trivial", 0, 0, 1, 0, 0, 0, "",                             \
      REQ_SOCKET_OPT | REQ_CLI | REQ_AGENT)

/* --trace-context's name for the OpenTelemetry API's own storage. */
#define REQ_TRACE_CONTEXT_OTEL "otel"

/* Splits --trace-context's CLASS.FIELD src at its last dot: the class's
 * length into *cls_len, the field's name at *field (borrowed from src);
 * 0, or -1 when src is not of that form (REQ_TRACE_CONTEXT_OTEL is not). */
int req_trace_context_split(const char *src, size_t *cls_len, const char **field);

/* A startup trace's regex when it gives none: every class. */
#define REQ_DEFAULT_REGEX ".*"

/* The rows' numbers: REQ_ROW_depth ..., and REQ_ROWS. */
#define REQ_ROW_ENUM(m, ...) REQ_ROW_##m,
enum req_row { REQ_FIELDS(REQ_ROW_ENUM) REQ_ROWS };
#undef REQ_ROW_ENUM

/* A row of REQ_FIELDS, as data. */
struct req_field {
    const char *member;
    enum req_type type;
    const char *key, *option;
    char short_name;
    long long min, max, wire_lo, none, def;
    const char *note;
    unsigned where;
    size_t at;                  /* the member's offset in struct mct_request */
};

/* The rows, REQ_ROWS of them, in REQ_FIELDS's order. */
extern const struct req_field req_fields[REQ_ROWS];

/* How a value was given, for the wording of messages. */
enum req_form {
    REQ_FORM_CLI,       /* "--NAME must be ..., got 'V'" */
    REQ_FORM_POSITIONAL,/* "NAME must be ..., got 'V'" */
    REQ_FORM_AGENT      /* "give ..., not 'V'" (the caller names the option) */
};

/* Every member at its `none`, given 0. */
void req_init(struct mct_request *r);

/* The row whose option is the len bytes at name and that may be given
 * where says (REQ_CLI, REQ_AGENT...), or NULL. */
const struct req_field *req_find(const char *name, size_t len, unsigned where);

/* Sets f's member of r from value, as a person wrote it (NULL for a
 * REQ_BOOL), checked against f's bounds; marks f given. Strings and gate
 * texts are borrowed from value, which must outlive r. -1 with e set
 * (MCT_E_ARG, worded for form) when the value is not valid. */
int req_set(const struct req_field *f, const char *value, enum req_form form, struct mct_request *r,
            mct_err *e);

/* The fields given to r by a parser (the command line's, form
 * REQ_FORM_CLI, or the option string's, REQ_FORM_AGENT) that do not go
 * together: the gates' (percentile needs fail-over-ms; min-ms leaves out
 * the calls they judge; min-calls needs a percentile or a budget; a cpu_
 * budget needs cpu, max-alloc needs alloc),
 * include-warmup (needs aggregate or a gate),
 * interval and slowest (need aggregate, which excludes min-ms and the
 * percentiles a summary does not carry). 0, or -1 with e set (MCT_E_ARG,
 * worded for form). */
int req_check(const struct mct_request *r, enum req_form form, mct_err *e);

/* Whether f was given to r by a parser. */
int req_given(const struct mct_request *r, enum req_row row);

/* Every member that a startup trace did not give and whose row has a
 * def other than its none at that def; regex at REQ_DEFAULT_REGEX. */
void req_startup_defaults(struct mct_request *r);

/* The members that the `trace` message does not carry at their none
 * (after the message was read into r). */
void req_init_off_wire(struct mct_request *r);

/* Appends r as the agent's option string to b: trace=CLASS.METHOD[DESC],
 * then every REQ_AGENT / REQ_AGENT_WIDE row not at its none, the gate rows
 * only when gates is non-zero; values percent-encoded where the option
 * syntax or JAVA_TOOL_OPTIONS would split them (',', '%', '=', quotes,
 * backslash, whitespace, every byte outside printable ASCII). b fails
 * (buf_failed) when out of memory. */
void req_optstr_write(const struct mct_request *r, int gates, mct_buf *b);

/* Points every string of r that pointed into [from, from + len) at the
 * same offset from to: for the owner of the text behind r when it moves r
 * and its text together (a struct copy). */
void req_rebase(struct mct_request *r, const char *from, size_t len, const char *to);

/* r's descriptor for messages: "" when every overload. */
const char *req_desc(const struct mct_request *r);

#endif
