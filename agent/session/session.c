/* session.c — see session.h. */
#include "session.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "call.h"
#include "async.h"
#include "await.h"
#include "cleanup.h"
#include "diag.h"
#include "emit.h"
#include "hier_jvmti.h"
#include "instrument.h"
#include "msg.h"
#include "probe.h"
#include "probe_install.h"
#include "server.h"
#include "session_int.h"
#include "splan.h"
#include "summary.h"
#include "tcsource.h"
#include "vm.h"
#include "warm.h"

/* How often the session looks for instrumented classes that were
 * unloaded (inst_unloaded). */
#define UNLOAD_CHECK_NS 250000000u

/* --follow-async: the tasks' futures, looked at through JNI. */
static const async_futures futures = {.keep = vm_weak_keep, .drop = vm_weak_drop, .done = vm_future_done};

static pthread_mutex_t slock = PTHREAD_MUTEX_INITIALIZER;
static struct session *current;
static uint32_t next_gen = 1;

uint64_t now_ns(void)
{
    return clock_monotonic_ns();
}

int64_t wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --- writing to the client ----------------------------------------------------------- */

/* Ends the session for reason (the first reason given stays): from now on
 * the calls still in the rings are discarded, not sent. */
void end_session(struct session *s, const char *reason)
{
    if (s->end_reason == NULL)
        s->end_reason = reason;
    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
}

/* With wlock held: writes the compact calls waiting in s->out (they come
 * before any later message); 0, or -1 with err set and s->broken. */
static int write_out(struct session *s, mct_err *err)
{
    int rc = 0;

    if (s->out.len > 0 && s->fd >= 0 && !s->broken) {
        rc = proto_write_frames_within(s->fd, s->out.data, s->out.len, PROTO_STALL_S * 1000LL, 0, err);
        if (rc < 0) {
            s->broken = 1;
            vm_debug("session of client pid %lld: %s; the session ends", s->client_pid, err->msg);
        }
    }
    buf_reset(&s->out);
    return rc;
}

/* Writes the compact calls encoded so far; a failed write ends the session. */
void flush_out(struct session *s)
{
    mct_err err;
    int rc;

    if (s->out.len == 0)
        return;
    pthread_mutex_lock(&s->wlock);
    rc = write_out(s, &err);
    pthread_mutex_unlock(&s->wlock);
    if (rc < 0)
        end_session(s, "client_gone");
}

/* Sends msg (stolen), or when msg is NULL the len bytes of whole frames
 * at frames, after the compact calls waiting, for as long as the client
 * takes a byte at least every PROTO_STALL_S, however long the whole takes
 * (a big summary to a client under load). On failure (err set) the session
 * ends: the client is gone, or accepted no byte for PROTO_STALL_S. What
 * follows a failed write would not be a frame: nothing more is sent. */
int send_any(struct session *s, json_t *msg, const void *frames, size_t len, mct_err *err)
{
    int rc = -1;

    pthread_mutex_lock(&s->wlock);
    if (s->fd < 0 || s->broken) {
        mct_err_set(err, MCT_E_IO, "an earlier write to the client failed");
    } else if (write_out(s, err) == 0) {
        rc = msg != NULL ? proto_write_within(s->fd, msg, PROTO_STALL_S * 1000LL, 0, err)
                         : proto_write_frames_within(s->fd, frames, len, PROTO_STALL_S * 1000LL, 0, err);
        if (rc < 0) {
            s->broken = 1;
            vm_debug("session of client pid %lld: %s; the session ends", s->client_pid, err->msg);
        }
    }
    pthread_mutex_unlock(&s->wlock);
    json_decref(msg);
    if (rc < 0)
        end_session(s, "client_gone");
    return rc;
}

int send_msg(struct session *s, json_t *msg)
{
    mct_err err;

    return msg == NULL ? -1 : send_any(s, msg, NULL, 0, &err);
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


/* Reads what the client says on the session connection: `stop`, or EOF. */
void read_client(struct session *s)
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
        /* At the JVM's exit (a startup trace) the calls completed so far
         * are the trace's last ones: a drain under way (this stop may come
         * to check_client in the middle of one) goes on taking them, and
         * cleanup_restore takes the rest. */
        if (strcmp(stop.reason, SESSION_STOP_JVM_EXIT) != 0)
            end_session(s, "stop");
        else if (s->end_reason == NULL)
            s->end_reason = "stop";
        snprintf(s->end_detail, sizeof s->end_detail, "%s", stop.reason);
    } else {
        send_msg(s, msg_error_new(PROTO_ERR_BAD_REQUEST, "a session only accepts stop, not %s",
                                  proto_type(msg)));
    }
    json_decref(msg);
}

/* Looks, without waiting, for a stop or a hang-up of the client of a
 * session that is not ending yet. */
void check_client(struct session *s)
{
    struct pollfd pfd = {.fd = s->fd, .events = POLLIN};

    s->checked_ns = now_ns();
    if (__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
        return;
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)))
        read_client(s);
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

/* How long the worker waits for the client between passes: a wait
 * between BUSY_WAIT_MIN_NS and BUSY_WAIT_MAX_NS that follows how full the
 * fullest ring was when a pass began (a thread's first ring holds a few
 * calls: at tens of thousands of calls a second it must be taken every few
 * hundred microseconds), back to the shortest once no call came for
 * BUSY_NS, and none at all after a pass that found a ring over FILL_HIGH.
 * While fewer than FEW_CALLS came in the last BUSY_NS or so, a pass after
 * a whole wait that finds no call puts the worker to sleep
 * (probe_await_calls) up to SLEEP_NS, until a thread's ring fills an
 * eighth: at a few hundred calls a second, a timer wake-up every
 * millisecond cost the worker more than the calls. More calls than that
 * keep it awake: a sleep, then a wake-up that has to wait for a core,
 * lost calls at tens of thousands a second. The client's stop and hang-up
 * wait SLEEP_NS at most. */
#define BUSY_NS 10000000u
#define BUSY_WAIT_MIN_NS 100000
#define BUSY_WAIT_MAX_NS 1000000
#define SLEEP_NS 10000000u
#define FEW_CALLS 10
#define FILL_HIGH (PROBE_FILL_ONE / 8)
#define FILL_LOW (PROBE_FILL_ONE / 32)

/* The next wait while calls come, from wait (the last one) and the fill
 * of the pass that followed it: halved when a ring was over FILL_HIGH,
 * doubled when none was over FILL_LOW. */
static long busy_wait(long wait, uint32_t fill)
{
    if (fill > FILL_HIGH)
        return wait / 2 > BUSY_WAIT_MIN_NS ? wait / 2 : BUSY_WAIT_MIN_NS;
    if (fill < FILL_LOW)
        return wait * 2 < BUSY_WAIT_MAX_NS ? wait * 2 : BUSY_WAIT_MAX_NS;
    return wait;
}

/* How long the worker may sleep from now: SLEEP_NS, less where the
 * session's interval ends sooner. */
static uint64_t sleep_ns(const struct session *s, uint64_t now)
{
    uint64_t end = s->interval_start_ns + s->interval_ns;

    if (s->interval_ns == 0)
        return SLEEP_NS;
    return end <= now ? 0 : end - now < SLEEP_NS ? end - now : SLEEP_NS;
}

/* Waits for the client between passes (briefly while calls come, longer
 * once they stop), and not at all while a busy thread's ring fills. */
static void run_loop(struct session *s, JNIEnv *jni)
{
    uint64_t taken_ns = 0;
    long busy = BUSY_WAIT_MIN_NS;
    uint32_t fill = 0;
    int idle = 0;               /* the worker sleeps before the next pass */
    uint64_t window_ns = 0, window = 0, last_window = 0; /* calls taken since window_ns,
                                   and in the window before */

    while (s->end_reason == NULL) {
        struct pollfd pfd = {.fd = s->fd, .events = POLLIN};
        struct timespec wait = {0, fill > FILL_HIGH ? 0 : busy};
        int r, timed;
        uint64_t taken;
        uint64_t now;

        if (idle) {
            probe_await_calls(sleep_ns(s, now_ns()));
            r = poll(&pfd, 1, 0);
        } else {
            r = ppoll(&pfd, 1, &wait, NULL);
        }
        /* Only a pass after the whole wait says whether that wait was
         * right: one right after the last finds the rings just taken. */
        timed = idle || (r == 0 && wait.tv_nsec == busy);
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
        fill = probe_drain_fill();
        flush_out(s);
        now = now_ns();
        if (taken > 0)
            taken_ns = now;
        if (now - window_ns >= BUSY_NS) {
            last_window = now - window_ns < 2 * BUSY_NS ? window : 0;
            window = 0;
            window_ns = now;
        }
        window += taken;
        idle = timed && taken == 0 && last_window + window < FEW_CALLS;
        /* Calls that start after a lull meet the shortest wait: a ring
         * may fill in a fraction of the longest. */
        if (now - taken_ns >= BUSY_NS)
            busy = BUSY_WAIT_MIN_NS;
        else if (timed)
            busy = busy_wait(busy, fill);
        if (s->interval_ns > 0 && now - s->interval_start_ns >= s->interval_ns) {
            mct_err err;

            /* A pass (drain, flush) can take longer than the interval:
             * said once, and each summary's start_ns and end_ns say what
             * it covers. */
            if (!s->stretch_said && now - s->interval_start_ns >= 2 * s->interval_ns) {
                char note[200];

                s->stretch_said = 1;
                snprintf(note, sizeof note,
                         "the interval of %.3f ms is shorter than a pass over the calls: this summary covers "
                         "%.3f ms (each summary's start_ns and end_ns say its span)",
                         (double)s->interval_ns / 1e6, (double)(now - s->interval_start_ns) / 1e6);
                send_status(s, note);
            }
            s->interval_start_ns = now;
            if (send_summary(s, 0, &err) < 0)
                summary_lost(s, "interval's", &err);
        }
        if (now - s->last_extend_ns >= 50000000u) {
            s->last_extend_ns = now;
            splan_extend(&s->sp, jni, 0);
        }
        {
            char note[REQ_TEXT_MAX + 256];

            if (tcsource_tick(s, jni, now, note, sizeof note))
                send_status(s, note);
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
static void read_request(struct session *s, const struct mct_request *r)
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
    s->cpu = r->cpu;
    s->alloc = r->alloc;
    s->follow_async = r->follow_async;
    s->skip_trivial = r->skip_trivial;
    s->async_wait_ns = (uint64_t)(r->async_wait_ms >= 0 ? r->async_wait_ms : REQ_ASYNC_WAIT_DEF) * 1000000u;
    s->args = r->args;
    s->args_len = (int)r->args_len;
    s->trace_context = r->trace_context;
}

/* What is wrong with a trace request that its schema cannot say, or NULL. */
static const char *request_problem(const struct mct_request *r)
{
    if (r->aggregate && r->min_ns > 0)
        return "min_ns cannot be used with aggregate: a summary covers every call";
    if (!r->aggregate && (r->interval_ms > 0 || r->slowest > 0))
        return "interval_ms and slowest need aggregate";
    if (r->aggregate && r->trace_context != NULL)
        return "trace_context cannot be used with aggregate: a summary's calls join no trace";
    return NULL;
}

/* How a traced call's ordinary probes record (probe.h probe_use_writer),
 * before any traced call (the writer needs the clock monotonic): with the
 * Java writer where the option asks, or, by default, where the agent's
 * clock is CLOCK_MONOTONIC anyway (the natives would pay a JNI transition
 * on top of the same read); else through the natives (a JNI call and
 * rdtsc cost what System.nanoTime does, or less: README "Overhead"). A
 * writer that cannot be turned on leaves the natives, which work. */
static void choose_probes(JNIEnv *jni, const char *mode)
{
    int writer = strcmp(mode, "java") == 0 || (strcmp(mode, "native") != 0 && !clock_tsc);

    if (!writer)
        return;
    if (probe_writer_scratch(jni) < 0 || probe_use_writer(jni) < 0) {
        vm_log("the probes' Java writer cannot be turned on; the natives record");
        return;
    }
    clock_use_monotonic();
}

/* Once per agent: the probe class, how its probes record, the hook. */
static int prepare(JNIEnv *jni, mct_err *err)
{
    static int ready;

    if (ready)
        return 0;
    clock_init(strcmp(vm_options()->clock, "monotonic") == 0);
    if (probe_install(jni, vm_jvmti(), 0, err) < 0)
        return -1;
    choose_probes(jni, vm_options()->probes);
    if (inst_init(jni, err) < 0)
        return -1;
    ready = 1;
    return 0;
}

/* Ends the session: the cleanup ladder (cleanup.c), then lets the next
 * session in and frees s. instrumented: the session holds the rings
 * (probe_consumer_begin). */
static void finish(struct session *s, JNIEnv *jni, int instrumented)
{
    cleanup_restore(s, jni, instrumented);
    pthread_mutex_lock(&slock);
    current = NULL;
    pthread_mutex_unlock(&slock);
    cleanup_free(s, jni, instrumented);
}

/* Plans (splan_make); when the entry class is not loaded, waits for it if
 * the request says so (await_watch is on), else says how to. 0, or -1 with
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
    if (await_entry(s) < 0)
        return mct_err_set(err, MCT_E_INTR, "the session ended while waiting for class %s to load", s->cls);
    return splan_make(&s->sp, jni, hier, client_gone, s, err);
}

static void JNICALL session_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    struct session *s = arg;
    struct splan_tally t;
    hj *hier = NULL;
    mct_err err;
    const char *why = NULL;
    int instrumented = 0, tc_pending;
    char tc_note[REQ_TEXT_MAX + 256];

    await_session_thread();
    if (prepare(jni, &err) < 0) {
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    /* From now on, classes that load are noted, so that none is missed
     * between the snapshot of the loaded classes and the instrumentation. */
    if (!s->plan_only)
        splan_watch_loads(&s->sp);
    if (s->wait && !s->plan_only && await_watch(s->cls, &err) < 0) {
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
    /* The probes' measured cost includes the CPU clock's read when asked. */
    probe_set_cpu(s->cpu);
    probe_set_args(s->args, s->args_len);
    if ((tc_pending = tcsource_begin(s, jni, tc_note, sizeof tc_note, &err)) < 0) {
        hj_free(hier);
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    if (probe_set_alloc(s->alloc, &why) < 0) {
        hj_free(hier);
        mct_err_set(&err, MCT_E_UNSUPPORTED, "--alloc cannot be used with this JVM: %s", why);
        send_error(s, &err);
        finish(s, jni, 0);
        return;
    }
    if (s->follow_async && (s->async = async_new(s->async_wait_ns, &futures)) == NULL) {
        hj_free(hier);
        mct_err_set(&err, MCT_E_NOMEM, "out of memory following hand-offs");
        send_error(s, &err);
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
    if (splan_instrument(&s->sp, jni, hier, &err) < 0) {
        hj_free(hier);
        send_error(s, &err);
        finish(s, jni, instrumented);
        return;
    }
    /* The entry class is instrumented: its held threads may run it. An
     * inherited entry method made ClassPrepare the receivers' already. */
    await_release(!s->sp.receiver);
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
        if (tc_pending)
            send_status(s, tc_note);
        splan_ready(&s->sp);
        /* The rings first: calls began as the classes were retransformed,
         * and a thread's first ring holds a few dozen. */
        drain(s, jni);
        flush_out(s);
        splan_extend(&s->sp, jni, 1);
        s->last_status_ns = s->last_extend_ns = s->last_unload_ns = now_ns();
        s->interval_start_ns = s->last_status_ns;
        s->run_wall_ns = s->interval_wall_ns = wall_ns();
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
    struct mct_request r;
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
    s->sp.follow_async = s->follow_async;
    s->sp.skip_trivial = s->skip_trivial;
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

/* A client's trace request on the listener: an attach, not the JVM's start. */
static enum server_verdict on_client_trace(int fd, json_t *req, const struct server_peer *peer, int last)
{
    warm_from_start(0);
    return on_trace(fd, req, peer, last);
}

void session_register(void)
{
    static const struct server_session_ops ops = {
        .trace = on_client_trace,
        .session = on_info,
        .tick = on_tick,
    };

    server_set_session_ops(&ops);
}

void session_start_local(int fd, json_t *req)
{
    static const struct server_peer self;
    struct mct_request r;
    mct_err err;
    int started;

    if (msg_trace_read(req, &r, &err) == 0 && r.wait && !r.plan_only && await_watch(r.cls, &err) < 0)
        vm_log("%s", err.msg);
    warm_from_start(1);
    on_trace(fd, req, &self, 1);
    pthread_mutex_lock(&slock);
    started = current != NULL;
    pthread_mutex_unlock(&slock);
    /* No session (it could not start, or ended already): hold no thread. */
    if (!started)
        await_release(1);
}

void session_vm_death(void)
{
    struct session *s;

    /* A thread held for the session must not hold up the JVM's exit. */
    await_unhold();

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
