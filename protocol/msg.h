/* msg.h — the messages of the protocol as C structs, both directions, for
 * both programs: for each message the one function that writes it (struct
 * -> a new JSON object, ready for proto_write) and the one that reads it
 * (JSON -> struct, after checking it against its schema with proto_validate).
 * Both walk the message's schema in proto.c, whose every key names the
 * member of the struct it goes to: adding a key to a message means a member
 * here, a line in its schema, its producer, its consumer and PROTOCOL.md.
 *
 * The `call` message is not here: the agent renders it from its tree
 * (agent/tree.c) and the client's formatters walk its JSON. Nor is
 * `summary`: the agent writes it with sum_to_json, and proto_validate checks
 * it with sum_json_check (protocol/summary.h), the one checker of it.
 *
 * Ownership, for every struct below:
 *   - a writer copies what it needs: the struct and its strings stay the
 *     caller's, and may go once the writer returns; every string must be
 *     UTF-8 (a writer fails with NULL when one is not, or out of memory);
 *   - a reader's strings are borrowed from the JSON it read: they live as
 *     long as the caller holds its reference to that message. Arrays a
 *     reader allocates (plan methods, hello's capabilities) are the struct's
 *     and go with msg_plan_clear / msg_hello_clear.
 * Integers are long long, booleans int, numbers double. An optional
 * integer or number is -1 when absent (every one of the protocol is >= 0),
 * an optional string NULL; an optional object has its has_ flag 0. */
#ifndef MCT_MSG_H
#define MCT_MSG_H

#include <stddef.h>

#include <jansson.h>

#include "err.h"
#include "proto.h"
#include "request.h"

/* ---- requests (client to agent) ----------------------------------------- */

/* `hello`, the client's side; the protocol is always PROTO_VERSION. */
struct msg_hello_req {
    const char *client;         /* the client's version */
};

/* `trace`: what to trace and how, a struct mct_request (request.h), whose
 * rows are the message's keys. */

/* `stop`: the client ends its session. */
struct msg_stop {
    const char *reason;         /* why, for the user ("timeout", "signal") */
};

/* ---- replies (agent to client) ------------------------------------------ */

/* The running session, as hello describes it. */
struct msg_session {
    const char *cls;            /* the entry class, with dots */
    const char *method;
    long long depth;
    const char *regex;
    long long client_pid;
    long long started_ns;       /* wall clock */
    long long calls;            /* completed so far */
    long long printed;          /* sent so far */
};

/* The JVM, as hello describes it. */
struct msg_jvm {
    const char *name;           /* java.vm.name */
    const char *vendor;         /* java.vm.vendor */
    const char *version;        /* java.version */
};

/* `hello`, the agent's side. */
struct msg_hello {
    long long protocol;         /* the protocol the agent speaks */
    const char *agent_version;
    long long pid;              /* the JVM's pid in its own namespace */
    struct msg_jvm jvm;
    int has_session;            /* 0: "session" is null */
    struct msg_session session;
    long long instrumented_classes;
    long long loads;            /* -1: absent */
    const char *const *missing; /* JVMTI capabilities the JVM could not give */
    size_t n_missing;
};

/* What a probe call costs, in ns (`probe` of the plan summary and of end). */
struct msg_probe {
    double ns;                  /* subtracted per probe call */
    double measured_ns, median_ns, floor_ns;
    int trusted;
    long long bursts;           /* >= 1 */
};

/* One method of the plan. */
struct msg_plan_method {
    const char *cls, *method, *desc;
    long long level;            /* 1 = the entry method */
    const char *status;         /* "instrumented", "pending", ... */
    int root;                   /* an entry method */
    long long id;               /* the probes' number; -1: none */
    const char *reason;         /* why left out or not rewritten; NULL: none */
};

/* The plan's summary. */
struct msg_plan_summary {
    long long instrumented, pending, skipped, failed, excluded, planned;
    long long trivial;          /* left as they are (trivial.h); absent: 0 */
    int capped;                 /* the plan hit its cap of methods */
    double plan_ms, instrument_ms;
    long long loaded_classes;
    const char *clock;          /* "tsc" or "monotonic" */
    const char *probes;         /* how traced calls record: "java" or "native";
                                   NULL: absent */
    int has_probe;              /* 0: not measured */
    struct msg_probe probe;
    long long callee_classes;   /* -1: absent */
    long long matched_classes;  /* -1: absent */
    const char *suggestion;     /* NULL: absent */
    long long suggestion_matches; /* -1: absent */
    const char *receiver;       /* NULL: absent */
};

/* `plan`: the agent's first answer to `trace`. */
struct msg_plan {
    const struct msg_plan_method *methods;   /* in the order of the plan */
    size_t n_methods;
    struct msg_plan_summary summary;
};

/* `status`: how a running session fares; a count is -1 when absent. */
struct msg_status {
    long long calls, printed, filtered, dropped;
    long long seen;             /* entry calls seen, traced or not */
    long long instrumented, pending, late;
    long long instrumented_classes, unloaded_classes;
    const char *note;           /* NULL: none */
};

/* `end`: the last message of a session. The counts are -1 when absent (a
 * dying JVM's end has only calls and printed). */
struct msg_end {
    const char *reason;         /* "count", "stop", "plan", "client_gone", ... */
    const char *detail;         /* NULL: none */
    long long calls, printed, filtered;
    long long seen;             /* entry calls seen, traced or not (sampled out, dropped) */
    long long dropped, discarded;
    long long restored_classes, instrumented_classes, unloaded_classes;
    double probe_ns;            /* subtracted per probe call (probe.ns); -1: absent */
    int has_probe;              /* 0: not measured */
    struct msg_probe probe;
    long long warmup;           /* calls marked warm-up; -1: absent */
    const char *warmup_unknown; /* why warm-up calls cannot be told; NULL: absent */
    long long not_recompiled;   /* methods not compiled again within the bound; -1: absent */
    long long trace_context_bad; /* calls whose trace context could not be read; -1: absent */
};

/* `error`: a refusal or failure. */
struct msg_error {
    enum proto_code code;       /* a code this side does not know reads as internal */
    const char *name;           /* read: the code as sent; a writer writes code's */
    const char *message;        /* a sentence for the user */
};

/* ---- writers: a new message (caller decrefs), or NULL ------------------- */

json_t *msg_hello_req_write(const struct msg_hello_req *m);
json_t *msg_trace_write(const struct mct_request *m);
json_t *msg_stop_write(const struct msg_stop *m);
json_t *msg_hello_write(const struct msg_hello *m);
json_t *msg_plan_write(const struct msg_plan *m);
json_t *msg_status_write(const struct msg_status *m);
json_t *msg_end_write(const struct msg_end *m);
/* The message is made valid UTF-8 ('?' for stray bytes) and, when empty,
 * replaced by the code's name. */
json_t *msg_error_write(const struct msg_error *m);

/* An `error` with code and the formatted message, through msg_error_write. */
json_t *msg_error_new(enum proto_code code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* *m with reason set and every optional key absent. */
void msg_end_init(struct msg_end *m, const char *reason);

/* ---- the startup trace's own lines (a file of the agent's, not the
 * socket's messages; SPEC and PROTOCOL.md describe them) ----------------- */

/* `start`: the first line, the JVM and the entry method. */
struct msg_start {
    long long pid;
    const char *vm, *version;   /* java.vm.name, java.vm.version */
    const char *entry;          /* CLASS.METHOD[DESC] */
};

json_t *msg_start_write(const struct msg_start *m);

/* `gate`: the gates' verdict before the end; failures is an array of
 * strings, gates one verdict per gate (replies_cases' objects) or NULL
 * (left out); the writer takes both references (also when it fails). */
json_t *msg_gate_write(int passed, json_t *failures, json_t *gates);

/* An `end` the startup trace writes itself (the session sent none):
 * type and reason only. */
json_t *msg_end_line_write(const char *reason);

/* Marks end (an `end` object) as one of a session whose plan never came
 * (the entry class was not loaded): "entry_loaded": false. */
void msg_end_mark_unloaded(json_t *end);

/* Makes end say reason (without detail): a session stopped at the JVM's
 * exit ends as "jvm_exit". */
void msg_end_set_reason(json_t *end, const char *reason);

/* ---- readers: 0, or -1 with e set (MCT_E_PROTO naming what is wrong) when
 * msg is not a valid message of that type and direction; msg stays the
 * caller's, and so do the strings read from it (see above). ---------------- */

int msg_hello_req_read(const json_t *msg, struct msg_hello_req *m, mct_err *e);
/* The members the message does not carry (out, the gates) are at their
 * none. */
int msg_trace_read(const json_t *msg, struct mct_request *m, mct_err *e);
int msg_stop_read(const json_t *msg, struct msg_stop *m, mct_err *e);
/* Also MCT_E_NOMEM. Free with msg_hello_clear, also after a failure. */
int msg_hello_read(const json_t *msg, struct msg_hello *m, mct_err *e);
/* Also MCT_E_NOMEM. Free with msg_plan_clear, also after a failure. */
int msg_plan_read(const json_t *msg, struct msg_plan *m, mct_err *e);
int msg_status_read(const json_t *msg, struct msg_status *m, mct_err *e);
int msg_end_read(const json_t *msg, struct msg_end *m, mct_err *e);
int msg_error_read(const json_t *msg, struct msg_error *m, mct_err *e);

/* Frees what msg_hello_read allocated; the struct is then empty. */
void msg_hello_clear(struct msg_hello *m);

/* Frees what msg_plan_read allocated; the struct is then empty. */
void msg_plan_clear(struct msg_plan *m);

/* A shallow copy of the object msg with "pid":pid last (the wrap form tags
 * each JVM's objects); a new reference, or NULL when out of memory. */
json_t *msg_with_pid(const json_t *msg, long long pid);

#endif
