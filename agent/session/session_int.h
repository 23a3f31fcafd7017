/* session_int.h — what the session's own files (session.c, emit.c,
 * await.c, cleanup.c) share: the session's state and the calls that write
 * to its client. Only files of agent/session/ include it. The session thread owns a session; the
 * listener reads the few fields said to be atomic, under slock. */
#ifndef MCT_SESSION_INT_H
#define MCT_SESSION_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "call.h"
#include "err.h"
#include "splan.h"
#include "summary.h"

struct session {
    uint32_t gen;
    int fd;
    pthread_mutex_t wlock;     /* one writer on fd at a time */
    json_t *req;
    long long client_pid;
    /* the request */
    const char *cls, *method, *desc, *regex;
    int depth, include_jdk, plan_only, verbose, wait;
    uint64_t min_ns, count;
    int aggregate;             /* summaries instead of calls */
    uint64_t interval_ns;      /* a summary this often; 0: only the final one */
    int64_t run_wall_ns, interval_wall_ns; /* wall-clock starts of the run's and the interval's summaries */
    int stretch_said;          /* an interval shorter than a pass was said */
    size_t slowest;            /* calls kept whole per summary */
    int include_warmup;        /* warm-up calls go into the summaries too */
    uint64_t warmup;           /* warm-up calls sent, or aggregated or left out (warm.h) */
    struct splan sp;           /* the plan and the classes that load later */
    /* the run */
    int64_t started_ns;
    uint64_t seq;              /* of the last call sent */
    /* calls and printed: the listener reads them (hello, busy), so they
     * are written atomically; only the session thread writes. */
    uint64_t calls, printed, filtered, dropped_base;
    uint64_t sample;           /* trace one entry call in this many */
    uint64_t seen_base;        /* probe_seen() when it began */
    uint64_t seen_summed;      /* of those since, what the summaries counted */
    uint64_t last_status_ns, last_extend_ns, last_unload_ns;
    size_t unloaded;           /* instrumented copies of classes found unloaded */
    const char *end_reason;    /* why it ends; set by the session thread only */
    int closing;               /* ending: calls still in the rings are discarded */
    int broken;                /* a write failed: nothing more is written */
    uint64_t discarded;        /* calls of the session discarded at its end */
    uint64_t checked_ns;       /* when the client was last looked at */
    /* aggregate: the interval's summary, the run's (the intervals sent so
     * far merged), when the interval began, the drops already counted */
    sum *agg, *total;
    uint64_t interval_start_ns, dropped_summed;
    char end_detail[256];
    /* the calls encoded and not written yet (the session thread's, written
     * under wlock); compact (call.h): the methods defined on the
     * connection; the model each call is filled into, and its methods */
    int compact;
    int cpu;                    /* the probes stamp events with the CPU clock */
    int alloc;                  /* ... and with the bytes the thread allocated */
    /* --follow-async: the entry calls waiting for their tasks (NULL: not
     * followed), how long each may wait */
    int follow_async;
    int skip_trivial;           /* trivial methods are left as they are */
    struct async *async;
    uint64_t async_wait_ns;
    int args;                   /* the entry methods pass their arguments (--args) */
    int args_len;               /* characters of a String argument kept */
    /* --trace-context: its source (NULL: none), not found yet (looked
     * for again from tc_look_ns on), calls whose context was unreadable */
    const char *trace_context;
    int tc_pending;
    uint64_t tc_look_ns;
    uint64_t trace_context_bad;
    mct_buf out;
    call_defs defs;
    call_tab tab;
    mct_call call;
    struct tree *tree;          /* every call's tree, built into one (emit.c) */
    _Atomic int death_told;    /* the end was claimed: by finish, or the VMDeath thread */
};

/* The `end` written as the JVM dies gets this long: the JVM's exit must
 * not wait for a client. */
#define END_SEND_MS 500

/* The monotonic clock, in ns. */
uint64_t now_ns(void);

/* The wall clock, in ns since the epoch. */
int64_t wall_ns(void);

/* Ends the session for reason (the first reason given stays): from now on
 * the calls still in the rings are discarded, not sent. */
void end_session(struct session *s, const char *reason);

/* Writes the compact calls encoded so far; a failed write ends the session. */
void flush_out(struct session *s);

/* Sends msg (stolen), or when msg is NULL the len bytes of whole frames at
 * frames (borrowed), after the compact calls waiting, for as long as the
 * client takes a byte at least every PROTO_STALL_S; 0, or -1 with err set
 * when the session ends for it (the client is gone or stalled). */
int send_any(struct session *s, json_t *msg, const void *frames, size_t len, mct_err *err);

/* send_any of a message; msg NULL (out of memory): -1. */
int send_msg(struct session *s, json_t *msg);

/* Reads what the client says on the session connection: `stop`, or EOF. */
void read_client(struct session *s);

/* Looks, without waiting, for a stop or a hang-up of the client of a
 * session that is not ending yet. */
void check_client(struct session *s);

#endif
