/* session.c — see session.h. */
#include "session.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "call.h"
#include "diag.h"
#include "hier_jvmti.h"
#include "instrument.h"
#include "methods.h"
#include "msg.h"
#include "mutf8.h"
#include "probe.h"
#include "server.h"
#include "splan.h"
#include "summary.h"
#include "tree.h"
#include "vm.h"
#include "warm.h"

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
    int aggregate;             /* summaries instead of calls (issue 11) */
    uint64_t interval_ns;      /* a summary this often; 0: only the final one */
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
    mct_buf out;
    call_defs defs;
    call_tab tab;
    mct_call call;
    _Atomic int death_told;    /* the end was claimed: by finish, or the VMDeath thread */
};

/* The `end` gets this long: the classes are restored already, and a client
 * that does not read it must not hold the worker. */
#define END_SEND_MS 500

/* How often the session looks for instrumented classes that were
 * unloaded (inst_unloaded). */
#define UNLOAD_CHECK_NS 250000000u

/* While it drains, the worker looks for a stop or a hang-up this often. */
#define CLIENT_CHECK_NS 2000000u

/* Compact calls are written once a pass, or when this many bytes wait. */
#define OUT_FLUSH_BYTES ((size_t)256 * 1024)

static pthread_mutex_t slock = PTHREAD_MUTEX_INITIALIZER;
static struct session *current;
static uint32_t next_gen = 1;

static uint64_t now_ns(void)
{
    return clock_monotonic_ns();
}

static int64_t wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --- writing to the client ----------------------------------------------------------- */

/* Ends the session for reason (the first reason given stays): from now on
 * the calls still in the rings are discarded, not sent. */
static void end_session(struct session *s, const char *reason)
{
    if (s->end_reason == NULL)
        s->end_reason = reason;
    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
}

/* With wlock held: writes the compact calls waiting in s->out (they come
 * before any later message); 0, or -1 with err set and s->broken. */
static int write_out(struct session *s, long long total_ms, mct_err *err)
{
    int rc = 0;

    if (s->out.len > 0 && s->fd >= 0 && !s->broken) {
        rc = proto_write_frames_within(s->fd, s->out.data, s->out.len, PROTO_STALL_S * 1000LL, total_ms, err);
        if (rc < 0) {
            s->broken = 1;
            vm_debug("session of client pid %lld: %s; the session ends", s->client_pid, err->msg);
        }
    }
    buf_reset(&s->out);
    return rc;
}

/* Writes the compact calls encoded so far; a failed write ends the session. */
static void flush_out(struct session *s)
{
    mct_err err;
    int rc;

    if (s->out.len == 0)
        return;
    pthread_mutex_lock(&s->wlock);
    rc = write_out(s, 0, &err);
    pthread_mutex_unlock(&s->wlock);
    if (rc < 0)
        end_session(s, "client_gone");
}

/* Sends msg (stolen), within total_ms when > 0, after the compact calls
 * waiting; on failure the session ends: the client is gone, or accepted no
 * byte for PROTO_STALL_S. What follows a failed write would not be a
 * frame: nothing more is sent. */
static int send_within(struct session *s, json_t *msg, long long total_ms)
{
    mct_err err;
    int rc = -1;

    if (msg == NULL)
        return -1;
    pthread_mutex_lock(&s->wlock);
    if (s->fd >= 0 && !s->broken && write_out(s, total_ms, &err) == 0) {
        rc = proto_write_within(s->fd, msg, PROTO_STALL_S * 1000LL, total_ms, &err);
        if (rc < 0) {
            s->broken = 1;
            vm_debug("session of client pid %lld: %s; the session ends", s->client_pid, err.msg);
        }
    }
    pthread_mutex_unlock(&s->wlock);
    json_decref(msg);
    if (rc < 0)
        end_session(s, "client_gone");
    return rc;
}

static int send_msg(struct session *s, json_t *msg)
{
    return send_within(s, msg, 0);
}

static void send_error(struct session *s, const mct_err *err)
{
    send_msg(s, msg_error_write(&(struct msg_error){ .code = proto_code_of_err(err->code), .message = err->msg }));
}

/* Whether the peer of fd hung up (or shut its side down), without waiting. */
static int hung_up(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLRDHUP};

    return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* Whether the client hung up: planning stops then (plan_request.gone). */
static int client_gone(void *arg)
{
    const struct session *s = arg;

    return hung_up(s->fd);
}

/* --- trees ------------------------------------------------------------------------------ */

/* Fills s->call with call c, whose tree is tr, numbered seq; its thread
 * and exception only when named (aggregate: only the slowest kept show
 * them). 0, or -1 with err set (the call is dropped). */
static int model_call(struct session *s, JNIEnv *jni, const probe_call *c, const tree *tr, uint64_t seq,
                      int named, mct_err *err)
{
    char exname[512], tname[256] = "";
    int64_t tid = 0;

    if (named && c->exception != NULL)
        vm_exception_name(c->exception, exname, sizeof exname);
    if (named)
        vm_thread_info(jni, c->thread, &tid, tname, sizeof tname);
    return tree_call(tr, &s->tab, &s->call, seq, tid, tname, named && tree_exception(tr) ? exname : NULL, err);
}

/* A call was sent (or aggregated): counted, warm-up (1) or not, and the
 * session ends once `count` were. */
static void call_done(struct session *s, int warmup)
{
    s->warmup += (uint64_t)warmup;
    __atomic_fetch_add(&s->printed, 1, __ATOMIC_RELAXED);
    if (s->count > 0 && s->printed >= s->count)
        end_session(s, "count");
}

/* aggregate: adds call c (tree tr) to the interval's summary; renders it
 * only when it would be among the slowest kept (seq: its rank among the
 * calls aggregated). */
static void aggregate_call(struct session *s, JNIEnv *jni, const probe_call *c, const tree *tr)
{
    mct_err err;

    if (model_call(s, jni, c, tr, s->printed + 1, sum_slowest_wants(s->agg, tree_total_ns(tr)), &err) < 0) {
        vm_log("dropping a traced call: %s", err.msg);
        return;
    }
    if (sum_add_call(s->agg, &s->tab, &s->call, &err) < 0) {
        /* Out of memory: the interval may hold part of the call. */
        vm_log("summarising a call: %s; the calls of this interval are lost", err.msg);
        sum_reset(s->agg);
        return;
    }
    call_done(s, 0);
}

/* aggregate: the interval's summary gets the calls not traced since the
 * last one, is sent (final: the run's, within total_ms when > 0), merged
 * into the run's and emptied. A failed write ends the session (send_within). */
static void send_summary(struct session *s, int final, long long total_ms)
{
    uint64_t dropped = probe_dropped() - s->dropped_base;
    uint64_t seen = probe_seen() - s->seen_base;
    json_t *msg;
    mct_err err;

    sum_add_not_traced(s->agg, dropped - s->dropped_summed);
    s->dropped_summed = dropped;
    sum_add_seen(s->agg, seen - s->seen_summed);
    s->seen_summed = seen;
    if (final) {
        if (sum_merge(s->total, s->agg, &err) < 0) {
            vm_log("the run's summary: %s", err.msg);
            return;
        }
        sum_reset(s->agg);
        msg = sum_to_json(s->total, 1, &err);
    } else {
        msg = sum_to_json(s->agg, 0, &err);
        if (sum_merge(s->total, s->agg, &err) < 0)
            vm_log("the run's summary: %s", err.msg);
        sum_reset(s->agg);
    }
    if (msg == NULL) {
        vm_log("rendering a summary: %s", err.msg);
        return;
    }
    send_within(s, msg, total_ms);
}

/* The session's last messages: with aggregate (instrumented: it ran), the
 * final summary, then end (stolen), the two within END_SEND_MS. */
static void send_last(struct session *s, json_t *end, int instrumented)
{
    uint64_t t0 = now_ns();
    long long left = END_SEND_MS;

    if (s->aggregate && instrumented) {
        send_summary(s, 1, END_SEND_MS);
        left -= (long long)((now_ns() - t0) / 1000000u);
    }
    send_within(s, end, left > 0 ? left : 1);
}

/* One completed call: filter, build, render, send (or aggregate). */
static void handle_call(struct session *s, JNIEnv *jni, const probe_call *c)
{
    const mt_method *root = mt_get(c->ev[0].id);
    int mine = c->session == s->gen;
    uint64_t raw = clock_ns(&s->sp.cal, c->ev[c->len - 1].t - c->ev[0].t);
    tree_opts o;
    tree *tr;
    mct_err err;

    if (root == NULL || !mine || raw < s->min_ns) {
        if (root != NULL && mine) {
            __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
            s->filtered++;
        }
        return;
    }
    __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
    o.cal = s->sp.cal;
    o.probe_ticks = (uint64_t)(s->sp.probe.ticks + 0.5);
    tr = tree_build(c->ev, c->len, &o, &err);
    if (tr == NULL) {
        vm_log("dropping a traced call: %s", err.msg);
    } else if (s->aggregate) {
        int warmup = tree_warmup(tr, warm_marks);

        if (warmup) {
            s->warmup++;
            sum_add_warmup(s->agg, 1);
        }
        if (!warmup || s->include_warmup)
            aggregate_call(s, jni, c, tr);
    } else if (tree_total_ns(tr) < s->min_ns) {
        s->filtered++;
    } else {
        int warmup = tree_warmup(tr, warm_marks);

        if (model_call(s, jni, c, tr, s->seq + 1, 1, &err) < 0) {
            vm_log("dropping a traced call: %s", err.msg);
        } else if (s->compact) {
            if (call_encode(&s->out, &s->tab, &s->defs, &s->call) < 0) {
                vm_log("dropping a traced call: out of memory encoding it");
            } else {
                s->seq++;
                call_done(s, warmup);
                if (s->out.len >= OUT_FLUSH_BYTES)
                    flush_out(s);
            }
        } else {
            s->seq++;
            if (call_json_frame(&s->out, &s->tab, &s->call) < 0) {
                vm_log("dropping a traced call: out of memory rendering it");
            } else {
                flush_out(s);
                if (!s->broken)
                    call_done(s, warmup);
            }
        }
    }
    tree_free(tr);
}

/* Reads what the client says on the session connection: `stop`, or EOF. */
static void read_client(struct session *s)
{
    mct_err err;
    json_t *msg = proto_read(s->fd, PROTO_REQUEST, 1000, &err);
    struct msg_stop stop;

    if (msg == NULL) {
        if (err.code == MCT_E_EOF || err.code == MCT_E_IO) {
            end_session(s, "client_gone");
        } else {
            send_msg(s, msg_error_new(PROTO_ERR_PROTOCOL, "%s", err.msg));
            end_session(s, "protocol_error");
        }
        return;
    }
    if (msg_stop_read(msg, &stop, &err) == 0) {
        end_session(s, "stop");
        snprintf(s->end_detail, sizeof s->end_detail, "%s", stop.reason);
    } else {
        send_msg(s, msg_error_new(PROTO_ERR_BAD_REQUEST, "a session only accepts stop, not %s",
                                  proto_type(msg)));
    }
    json_decref(msg);
}

/* Looks, without waiting, for a stop or a hang-up of the client of a
 * session that is not ending yet. */
static void check_client(struct session *s)
{
    struct pollfd pfd = {.fd = s->fd, .events = POLLIN};

    s->checked_ns = now_ns();
    if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
        return;
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
        read_client(s);
}

/* probe_sink.discarding: once the session ends, the calls still in the
 * rings are discarded. */
static int discarding(void *arg)
{
    const struct session *s = arg;

    return __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE);
}

/* probe_sink.call: builds and sends a call, or counts it as discarded when
 * it is this session's; looks at the client every CLIENT_CHECK_NS, so that
 * a stop or a hang-up ends the session within a call or two, however full
 * the rings. */
static void take_call(void *arg, JNIEnv *jni, const probe_call *c)
{
    struct session *s = arg;

    if (c->ev == NULL) {
        if (c->session == s->gen)
            s->discarded++;
    } else {
        handle_call(s, jni, c);
    }
    if (now_ns() - s->checked_ns >= CLIENT_CHECK_NS)
        check_client(s);
}

/* Takes the calls completed so far (probe_drain); how many. */
static uint64_t drain(struct session *s, JNIEnv *jni)
{
    const probe_sink sink = {.discarding = discarding, .call = take_call, .arg = s};

    s->sp.cal = clock_calibration();
    return probe_drain(jni, &sink);
}

static void send_status(struct session *s, const char *note)
{
    struct splan_tally t = splan_tally(&s->sp);
    struct msg_status m = {
        .calls = (long long)s->calls, .printed = (long long)s->printed, .filtered = (long long)s->filtered,
        .dropped = (long long)(probe_dropped() - s->dropped_base), .instrumented = (long long)t.instrumented,
        .seen = (long long)(probe_seen() - s->seen_base),
        .pending = (long long)t.pending, .late = (long long)splan_late(&s->sp),
        .instrumented_classes = (long long)inst_rewritten_classes(), .unloaded_classes = (long long)s->unloaded,
        .note = note,
    };

    send_msg(s, msg_status_write(&m));
}

/* How long the worker waits for the client between passes that take no
 * call: BUSY_WAIT_NS while calls came within BUSY_NS (a thread's first ring
 * holds a few dozen calls: at tens of thousands of calls a second it must
 * be taken every few hundred microseconds), else IDLE_WAIT_NS. */
#define BUSY_NS 10000000u
#define BUSY_WAIT_NS 100000
#define IDLE_WAIT_NS 1000000

/* Waits for the client when the last drain found nothing (briefly while
 * calls come), so that busy threads' rings are taken again at once. */
static void run_loop(struct session *s, JNIEnv *jni)
{
    uint64_t taken = 0, taken_ns = 0;

    while (s->end_reason == NULL) {
        struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
        struct timespec wait = {0, taken > 0 ? 0 : now_ns() - taken_ns < BUSY_NS ? BUSY_WAIT_NS : IDLE_WAIT_NS};
        int r = ppoll(&pfd, 1, &wait, NULL);
        uint64_t now;

        if (r < 0 && errno != EINTR) {
            end_session(s, "internal_error");
            break;
        }
        if (r > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
            read_client(s);
        s->checked_ns = now_ns();
        if (s->end_reason != NULL)
            break;
        taken = drain(s, jni);
        flush_out(s);
        now = now_ns();
        if (taken > 0)
            taken_ns = now;
        if (s->interval_ns > 0 && now - s->interval_start_ns >= s->interval_ns) {
            s->interval_start_ns = now;
            send_summary(s, 0, 0);
        }
        if (now - s->last_extend_ns >= 50000000u) {
            s->last_extend_ns = now;
            splan_extend(&s->sp, jni, 0);
        }
        if (now - s->last_unload_ns >= UNLOAD_CHECK_NS) {
            size_t unloaded = inst_unloaded(jni);

            s->last_unload_ns = now;
            /* Said at once, verbose or not: the session may trace nothing
             * from now on (until the classes load again). */
            if (unloaded > s->unloaded) {
                s->unloaded = unloaded;
                send_status(s, "instrumented classes were unloaded: their class loader was collected");
            }
        }
        if (s->verbose && now - s->last_status_ns >= 1000000000u) {
            s->last_status_ns = now;
            send_status(s, s->calls == 0 ? "no call of the entry method has completed yet" : NULL);
        }
    }
}

/* --- the session thread ------------------------------------------------------------------ */

/* The request r (read by msg_trace_read from s->req, whose strings it
 * borrows for the session's life) into s. */
static void read_request(struct session *s, const struct msg_trace *r)
{
    s->cls = r->cls;
    s->method = r->method;
    s->desc = r->desc;
    s->regex = r->regex;
    s->depth = r->depth;
    s->include_jdk = r->include_jdk;
    s->plan_only = r->plan_only;
    s->verbose = r->verbose;
    s->min_ns = (uint64_t)r->min_ns;
    s->count = (uint64_t)r->count;
    s->client_pid = r->client_pid;
    s->aggregate = r->aggregate;
    s->interval_ns = r->interval_ms > 0 ? (uint64_t)r->interval_ms * 1000000u : 0;
    s->slowest = r->slowest > 0 ? (size_t)r->slowest : 0;
    s->wait = r->wait && !r->plan_only;
    s->sample = r->sample > 1 ? (uint64_t)r->sample : 1;
    s->include_warmup = r->include_warmup;
    s->compact = r->compact;
}

/* What is wrong with a trace request that its schema cannot say, or NULL. */
static const char *request_problem(const struct msg_trace *r)
{
    if (r->aggregate && r->min_ns > 0)
        return "min_ns cannot be used with aggregate: a summary covers every call";
    if (!r->aggregate && (r->interval_ms > 0 || r->slowest > 0))
        return "interval_ms and slowest need aggregate";
    return NULL;
}

/* --- waiting for the entry class ----------------------------------------------------------
 *
 * A session that waits for its entry class watches ClassPrepare for it. The
 * thread that prepares a copy of the class is held there (it cannot run the
 * class's code before it is prepared) until the session has planned and
 * instrumented it, at most ENTRY_HOLD_MS, so that its very first calls are
 * traced. The session thread learns of the class through an eventfd. */

/* How long a thread that prepares the entry class is held for the session. */
#define ENTRY_HOLD_MS 10000

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char *name;         /* the entry class's internal name; NULL: not waiting */
    int efd;            /* written once a copy was prepared; -1 when none */
    int held;           /* threads are held: the session has not released them */
    int installed;      /* our ClassPrepare callback is the JVM's */
} entry = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, -1, 0, 0 };

/* Set on the session thread: it runs Java of its own while it waits (the
 * probes' calibration, reading class bytes), and must never hold itself. */
static __thread int on_session_thread;

static void JNICALL on_entry_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass k)
{
    mct_err err;
    char *name = vm_class_name(k, &err);
    struct timespec until;

    (void)jvmti;
    (void)jni;
    (void)thread;
    if (name == NULL)
        return;
    pthread_mutex_lock(&entry.lock);
    if (entry.name != NULL && entry.held && strcmp(entry.name, name) == 0) {
        uint64_t one = 1;

        if (entry.efd >= 0 && write(entry.efd, &one, sizeof one) < 0)
            vm_debug("telling the session that its entry class loaded: %s", strerror(errno));
        /* The monotonic clock: a step of the wall clock must not stretch
         * the hold. */
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += ENTRY_HOLD_MS / 1000;
        while (entry.held && !on_session_thread) {
            if (pthread_cond_clockwait(&entry.cond, &entry.lock, CLOCK_MONOTONIC, &until) != 0) {
                vm_log("the session planning %s took over %d s: its calls run untraced until it is done",
                       mutf8_binary_name(name, strlen(name)), ENTRY_HOLD_MS / 1000);
                break;
            }
        }
    }
    pthread_mutex_unlock(&entry.lock);
    free(name);
}

/* Starts watching for the class cls (binary name with dots); 0, or -1 with
 * err set. The next entry_release ends it. */
static int entry_watch(const char *cls, mct_err *err)
{
    int efd, watching;
    char *name;

    /* Already watched since the session was asked for (session_start_local). */
    pthread_mutex_lock(&entry.lock);
    watching = entry.name != NULL;
    pthread_mutex_unlock(&entry.lock);
    if (watching)
        return 0;
    efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    name = strdup(cls);
    if (efd < 0 || name == NULL) {
        if (efd >= 0)
            close(efd);
        free(name);
        return mct_err_set(err, MCT_E_IO, "cannot wait for class %s: %s", cls, strerror(errno));
    }
    for (char *p = name; *p != '\0'; p++)
        if (*p == '.')
            *p = '/';
    pthread_mutex_lock(&entry.lock);
    entry.name = name;
    entry.efd = efd;
    entry.held = 1;
    pthread_mutex_unlock(&entry.lock);
    if (vm_set_class_prepare(on_entry_prepare, err) < 0) {
        pthread_mutex_lock(&entry.lock);
        entry.name = NULL;
        entry.efd = -1;
        entry.held = 0;
        pthread_mutex_unlock(&entry.lock);
        close(efd);
        free(name);
        return -1;
    }
    entry.installed = 1;
    return 0;
}

/* Lets the held threads go and stops waiting; unhook: also remove our
 * ClassPrepare callback (else it is someone else's now, or gone). */
static void entry_release(int unhook)
{
    mct_err err;
    char *name;
    int efd;

    if (unhook && entry.installed && vm_set_class_prepare(NULL, &err) < 0)
        vm_log("%s", err.msg);
    entry.installed = 0;
    pthread_mutex_lock(&entry.lock);
    name = entry.name;
    efd = entry.efd;
    entry.name = NULL;
    entry.efd = -1;
    entry.held = 0;
    pthread_cond_broadcast(&entry.cond);
    pthread_mutex_unlock(&entry.lock);
    if (efd >= 0)
        close(efd);
    free(name);
}

/* Waits until a copy of the entry class is prepared (0), or the session
 * ends first: stop, the client gone, the JVM dying (-1). With verbose, says
 * what it waits for, every few seconds. */
static int entry_await(struct session *s)
{
    uint64_t told = 0;
    char note[1200];

    snprintf(note, sizeof note, "waiting for class %s to load", s->cls);
    while (s->end_reason == NULL && !s->death_told) {
        struct pollfd pfd[2] = {{.fd = s->fd, .events = POLLIN}, {.fd = entry.efd, .events = POLLIN}};
        int r;

        if (s->verbose && now_ns() - told >= 5000000000u) {
            struct msg_status m = {.calls = -1, .printed = -1, .filtered = -1, .dropped = -1, .seen = -1,
                                   .instrumented = -1, .pending = -1, .late = -1, .instrumented_classes = -1,
                                   .unloaded_classes = -1, .note = note};

            told = now_ns();
            send_msg(s, msg_status_write(&m));
        }
        r = poll(pfd, 2, 1000);
        if (r < 0 && errno != EINTR) {
            end_session(s, "internal_error");
            break;
        }
        if (r > 0 && (pfd[1].revents & POLLIN))
            return 0;
        if (r > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            read_client(s);
    }
    return -1;
}

/* Once per agent: the probe class, the hook, and the probes' cost. */
static int prepare(JNIEnv *jni, mct_err *err)
{
    static int ready;

    if (ready)
        return 0;
    clock_init(strcmp(vm_options()->clock, "monotonic") == 0);
    if (probe_install(jni, vm_jvmti(), 0, err) < 0 || inst_init(jni, err) < 0)
        return -1;
    ready = 1;
    return 0;
}

/* Ends the session: restores the classes, discards the calls left, sends
 * the `end` (when the session ran), lets the next session in, shrinks the
 * rings and frees s. instrumented: the session holds the rings
 * (probe_consumer_begin). */
static void finish(struct session *s, JNIEnv *jni, int instrumented)
{
    mct_err err;
    int restored = 0;
    struct msg_end end;

    /* Stopped as the JVM exits (a startup trace): the calls completed so
     * far are the trace's last ones, not discarded. */
    if (instrumented && s->end_reason != NULL && strcmp(s->end_detail, SESSION_STOP_JVM_EXIT) == 0) {
        __atomic_store_n(&s->closing, 0, __ATOMIC_RELEASE);
        drain(s, jni);
    }
    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
    entry_release(1);
    splan_unwatch_loads();
    if (instrumented && vm_set_class_prepare(NULL, &err) < 0)
        vm_log("%s", err.msg);
    probe_session_end(jni);
    if (instrumented) {
        size_t before;

        s->unloaded = inst_unloaded(jni);
        before = inst_rewritten_classes();

        if (inst_restore(jni, &err) < 0)
            vm_log("restoring classes: %s", err.msg);
        restored = (int)before;
        drain(s, jni); /* frees the exception refs of calls that ended meanwhile */
    }
    warm_end();
    /* One end per session: this one, or the VMDeath thread's (whichever
     * claims death_told first). */
    if (s->end_reason != NULL && atomic_exchange(&s->death_told, 1) == 0) {
        uint64_t busy = instrumented ? probe_dropped() - s->dropped_base : 0;
        /* The client's stop reason, maybe cut mid-character. */
        char *detail = s->end_detail[0] != '\0' ? mutf8_dup(s->end_detail) : NULL;
        char *warm_why;

        msg_end_init(&end, s->end_reason);
        end.calls = (long long)s->calls;
        end.printed = (long long)s->printed;
        end.filtered = (long long)s->filtered;
        if (instrumented)
            end.seen = (long long)(probe_seen() - s->seen_base);
        end.dropped = (long long)(busy + s->discarded);
        end.discarded = (long long)s->discarded;
        end.restored_classes = restored;
        end.instrumented_classes = (long long)inst_rewritten_classes();
        end.unloaded_classes = (long long)s->unloaded;
        end.detail = detail;
        end.warmup = instrumented && warm_unknown() == NULL ? (long long)s->warmup : -1;
        warm_why = instrumented && warm_unknown() != NULL ? mutf8_dup(warm_unknown()) : NULL;
        end.warmup_unknown = warm_why;
        end.not_recompiled = instrumented ? warm_stale() : -1;
        if (s->sp.probe.bursts > 0) {
            end.has_probe = 1;
            end.probe = splan_probe(&s->sp);
            end.probe_ns = end.probe.ns;
        }
        send_last(s, msg_end_write(&end), instrumented);
        free(detail);
        free(warm_why);
    }
    pthread_mutex_lock(&slock);
    current = NULL;
    pthread_mutex_unlock(&slock);
    pthread_mutex_lock(&s->wlock);
    close(s->fd);
    s->fd = -1;
    pthread_mutex_unlock(&s->wlock);
    if (instrumented)
        probe_consumer_end(jni);
    pthread_mutex_destroy(&s->wlock);
    splan_free(&s->sp);
    sum_free(s->agg);
    sum_free(s->total);
    buf_free(&s->out);
    call_defs_free(&s->defs);
    call_tab_free(&s->tab);
    call_free(&s->call);
    json_decref(s->req);
    free(s);
}

/* Plans (splan_make); when the entry class is not loaded, waits for it if
 * the request says so (entry_watch is on), else says how to. 0, or -1 with
 * err set (MCT_E_INTR when the session ended while waiting). */
static int plan_entry(struct session *s, JNIEnv *jni, hj **hier, mct_err *err)
{
    if (splan_make(&s->sp, jni, hier, client_gone, s, err) == 0)
        return 0;
    if (err->code != MCT_E_NO_CLASS)
        return -1;
    if (!s->wait) {
        size_t n = strlen(err->msg);

        snprintf(err->msg + n, sizeof err->msg - n, "; or trace with --wait to wait for it to load");
        return -1;
    }
    hj_free(*hier);
    *hier = NULL;
    vm_debug("session of client pid %lld: waiting for class %s to load", s->client_pid, s->cls);
    if (entry_await(s) < 0)
        return mct_err_set(err, MCT_E_INTR, "the session ended while waiting for class %s to load", s->cls);
    return splan_make(&s->sp, jni, hier, client_gone, s, err);
}

static void JNICALL session_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct session *s = arg;
    struct splan_tally t;
    hj *hier = NULL;
    mct_err err;
    int instrumented = 0;

    on_session_thread = 1;
    if (prepare(jni, &err) < 0) {
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    /* From now on, classes that load are noted, so that none is missed
     * between the snapshot of the loaded classes and the instrumentation. */
    if (!s->plan_only)
        splan_watch_loads(&s->sp);
    if (s->wait && !s->plan_only && entry_watch(s->cls, &err) < 0) {
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    if (plan_entry(s, jni, &hier, &err) < 0) {
        hj_free(hier);
        if (err.code != MCT_E_INTR) /* else the client is gone, or was told */
            send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    if (s->aggregate && ((s->agg = sum_new(s->slowest, &err)) == NULL ||
                         (s->total = sum_new(s->slowest, &err)) == NULL)) {
        hj_free(hier);
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    if (s->plan_only) {
        hj_free(hier);
        send_msg(s, splan_json(&s->sp));
        s->end_reason = "plan";
        finish(s, jni, 0);
        return;
    }
    splan_calibrate(&s->sp, jni);
    /* The rings are this session's once the last one has shrunk them. */
    probe_consumer_begin();
    s->dropped_base = probe_dropped();
    s->seen_base = probe_seen();
    probe_set_sample(s->sample);
    instrumented = 1;
    if (splan_instrument(&s->sp, jni, &err) < 0) {
        hj_free(hier);
        send_error(s, &err);
        finish(s, jni, instrumented);
        return;
    }
    /* The entry class is instrumented: its held threads may run it. An
     * inherited entry method made ClassPrepare the receivers' already. */
    entry_release(!s->sp.receiver);
    hj_free(hier);
    t = splan_tally(&s->sp);
    if (t.instrumented == 0 && t.pending == 0) {
        mct_err_set(&err, MCT_E_NOTHING,
                    "no method of the plan could be instrumented (run with --plan to see why)");
        send_msg(s, splan_json(&s->sp));
        send_error(s, &err);
        finish(s, jni, instrumented);
        return;
    }
    if (send_msg(s, splan_json(&s->sp)) == 0) {
        splan_ready(&s->sp);
        /* The rings first: calls began as the classes were retransformed,
         * and a thread's first ring holds a few dozen. */
        drain(s, jni);
        flush_out(s);
        splan_extend(&s->sp, jni, 1);
        s->last_status_ns = s->last_extend_ns = s->last_unload_ns = now_ns();
        s->interval_start_ns = s->last_status_ns;
        run_loop(s, jni);
    }
    finish(s, jni, instrumented);
}

/* --- the listener's side ---------------------------------------------------------------- */

static void reply_and_close(int fd, json_t *msg)
{
    mct_err err;

    if (msg != NULL) {
        proto_write(fd, msg, &err);
        json_decref(msg);
    }
    close(fd);
}

/* Whether session s is ending: it says so, or its client hung up (slock
 * held, so s->fd is still open). */
static int ending(const struct session *s)
{
    return __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE) || hung_up(s->fd);
}

/* A trace request, on the listener thread: starts its session, answers
 * busy, or, while the running session is ending (its client is gone, it
 * restores the classes), asks the listener to offer it again (SERVER_LATER),
 * so that a client started right after another was interrupted gets its
 * session, not "busy". */
static enum server_verdict on_trace(int fd, json_t *req, const struct server_peer *peer, int last)
{
    struct session *s;
    struct msg_trace r;
    JNIEnv *jni;
    mct_err err;

    if (diag_active()) {
        reply_and_close(fd, msg_error_new(PROTO_ERR_UNSUPPORTED, "this JVM runs the agent's diagnostic "
                                                                 "rewrite-all mode, which cannot trace"));
        json_decref(req);
        return SERVER_TAKEN;
    }
    if (msg_trace_read(req, &r, &err) < 0) {
        reply_and_close(fd, msg_error_new(PROTO_ERR_PROTOCOL, "%s", err.msg));
        json_decref(req);
        return SERVER_TAKEN;
    }
    if (request_problem(&r) != NULL) {
        reply_and_close(fd, msg_error_new(PROTO_ERR_BAD_REQUEST, "trace request: %s", request_problem(&r)));
        json_decref(req);
        return SERVER_TAKEN;
    }
    pthread_mutex_lock(&slock);
    if (current != NULL && !last && ending(current)) {
        pthread_mutex_unlock(&slock);
        return SERVER_LATER;
    }
    if (current != NULL) {
        reply_and_close(fd, msg_error_new(PROTO_ERR_BUSY,
                                          "another mcalltree session is running in this JVM: %s.%s depth %d, "
                                          "client pid %lld, %llu calls printed; wait for it to end or stop it",
                                          current->cls, current->method, current->depth, current->client_pid,
                                          (unsigned long long)__atomic_load_n(&current->printed, __ATOMIC_RELAXED)));
        pthread_mutex_unlock(&slock);
        json_decref(req);
        return SERVER_TAKEN;
    }
    s = calloc(1, sizeof *s);
    jni = vm_jni();
    if (s == NULL || jni == NULL) {
        pthread_mutex_unlock(&slock);
        free(s);
        reply_and_close(fd, msg_error_new(PROTO_ERR_INTERNAL, "the agent cannot start a session"));
        json_decref(req);
        return SERVER_TAKEN;
    }
    s->fd = fd;
    s->req = req;
    s->gen = next_gen++;
    pthread_mutex_init(&s->wlock, NULL);
    read_request(s, &r);
    splan_init(&s->sp, s->gen, s->cls, s->method, s->desc, s->regex, s->depth, s->include_jdk);
    s->started_ns = wall_ns();
    current = s;
    pthread_mutex_unlock(&slock);
    if (vm_start_thread(jni, "mcalltree session", session_main, s, &err) < 0) {
        pthread_mutex_lock(&slock);
        current = NULL;
        pthread_mutex_unlock(&slock);
        reply_and_close(fd, msg_error_new(PROTO_ERR_INTERNAL, "%s", err.msg));
        pthread_mutex_destroy(&s->wlock);
        splan_free(&s->sp);
        json_decref(req);
        free(s);
    }
    return SERVER_TAKEN;
}

static json_t *on_info(struct msg_hello *h)
{
    json_t *msg;

    h->instrumented_classes = (long long)inst_rewritten_classes();
    pthread_mutex_lock(&slock);
    h->has_session = current != NULL;
    if (current != NULL)
        h->session = (struct msg_session){
            .cls = current->cls, .method = current->method, .depth = current->depth, .regex = current->regex,
            .client_pid = current->client_pid, .started_ns = current->started_ns,
            .calls = (long long)__atomic_load_n(&current->calls, __ATOMIC_RELAXED),
            .printed = (long long)__atomic_load_n(&current->printed, __ATOMIC_RELAXED),
        };
    /* Under slock: the strings are the request's, which the session frees. */
    msg = msg_hello_write(h);
    pthread_mutex_unlock(&slock);
    return msg;
}

/* The listener's tick: restores the classes a session's end found still
 * being defined, and shrinks the rings a session's end left big (their
 * threads were in a call), unless a session holds them. */
static void on_tick(void)
{
    JNIEnv *jni = vm_jni();

    if (jni == NULL)
        return;
    inst_restore_leftovers(jni);
    probe_tidy(jni);
}

void session_register(void)
{
    static const struct server_session_ops ops = {
        .trace = on_trace,
        .session = on_info,
        .tick = on_tick,
    };

    server_set_session_ops(&ops);
}

void session_start_local(int fd, json_t *req)
{
    static const struct server_peer self;
    struct msg_trace r;
    mct_err err;
    int started;

    if (msg_trace_read(req, &r, &err) == 0 && r.wait && !r.plan_only && entry_watch(r.cls, &err) < 0)
        vm_log("%s", err.msg);
    on_trace(fd, req, &self, 1);
    pthread_mutex_lock(&slock);
    started = current != NULL;
    pthread_mutex_unlock(&slock);
    /* No session (it could not start, or ended already): hold no thread. */
    if (!started)
        entry_release(1);
}

void session_vm_death(void)
{
    struct session *s;

    /* A thread held for the session must not hold up the JVM's exit. */
    pthread_mutex_lock(&entry.lock);
    entry.held = 0;
    pthread_cond_broadcast(&entry.cond);
    pthread_mutex_unlock(&entry.lock);

    pthread_mutex_lock(&slock);
    s = current;
    if (s != NULL && atomic_exchange(&s->death_told, 1) == 0) {
        struct msg_end m;
        json_t *end;
        mct_err err;

        msg_end_init(&m, "jvm_exit");
        m.calls = (long long)__atomic_load_n(&s->calls, __ATOMIC_RELAXED);
        m.printed = (long long)__atomic_load_n(&s->printed, __ATOMIC_RELAXED);
        end = msg_end_write(&m);

        /* Written here, on the dying JVM's thread, without touching the
         * session's state (its own thread may be running). */
        pthread_mutex_lock(&s->wlock);
        if (end != NULL && s->fd >= 0 && !s->broken)
            proto_write_within(s->fd, end, END_SEND_MS, END_SEND_MS, &err);
        pthread_mutex_unlock(&s->wlock);
        json_decref(end);
    }
    pthread_mutex_unlock(&slock);
}
