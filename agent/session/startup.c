/* startup.c — see startup.h. */
#include "startup.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "buf.h"
#include "call.h"
#include "gates.h"
#include "replies.h"
#include "msg.h"
#include "proto.h"
#include "reader.h"
#include "session.h"
#include "summary.h"
#include "vm.h"

/* The file and what its writer thread has seen; lock guards every member
 * once the writer runs. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int started;        /* startup_begin ran */
    int file;           /* the output file; -1 once closed */
    int sock;           /* the writer's end of the session's connection */
    int verbose;
    int running;        /* the writer thread runs */
    int plan_seen;      /* the entry class loaded and was planned */
    int error_seen;     /* the session sent an error */
    int write_failed;   /* a write failed: said once, and the session stopped */
    int removed;        /* the file was removed: nothing more is written */
    uint64_t lost;      /* lines not written since the last one that was */
    time_t checked;     /* when the file was last looked for */
    int ended;          /* the end line was written, or is kept in tail */
    char *tail;         /* the end line a full disk refused, written at the JVM's exit */
    char path[4200];
    reader rd;          /* the session's replies, to the callbacks of the writer */
} st = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, "", {0} };

/* Asks the session to end (lock held), detail in its end line; the
 * session drains what completed and sends its end to the writer. */
static void stop_session(const char *detail)
{
    json_t *stop = msg_stop_write(&(struct msg_stop){.reason = detail});
    mct_err e;

    if (st.sock >= 0 && (stop == NULL || proto_write_within(st.sock, stop, 200, 200, &e) < 0))
        vm_log("stopping the startup trace: %s", stop == NULL ? "out of memory" : e.msg);
    json_decref(stop);
}

/* Writes len bytes of whole lines to the file at once (lock held); on a
 * failure, what part of them got in is cut off again, so that the file
 * holds whole lines only. 0, or -1 with errno set. */
static int write_whole(const char *text, size_t len)
{
    off_t at = lseek(st.file, 0, SEEK_END);
    size_t done = 0;

    while (done < len) {
        ssize_t n = write(st.file, text + done, len - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : ENOSPC;

            if (done > 0 && (at < 0 || ftruncate(st.file, at) < 0))
                vm_log("cutting a part line off %s: %s", st.path, strerror(errno));
            errno = err;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

/* Once a second (lock held): whether the file is still there; a removed
 * file (or its directory) ends the session, said on stderr, since no one
 * can read what would be written to it. */
static void check_removed(void)
{
    struct stat sb;
    time_t now = time(NULL);

    if (st.file < 0 || st.removed || now == st.checked)
        return;
    st.checked = now;
    if (fstat(st.file, &sb) == 0 && sb.st_nlink == 0) {
        st.removed = 1;
        vm_log("the trace file %s was removed: the trace ends, the JVM runs on untraced", st.path);
        stop_session("the trace file was removed");
    }
}

/* Writes the len bytes of text (whole lines) to the file (lock held). A
 * failed write (a full disk) loses its lines, counted; the first is said
 * on stderr and ends the session, and the lines lost are said in a gap
 * line as soon as a write gets in again. The JVM must not notice. 0, or
 * -1 when the lines were lost. */
static int write_text(const char *text, size_t len)
{
    uint64_t lines = 0;

    check_removed();
    if (st.removed)
        return -1;
    if (st.lost > 0) {
        char gap[96];
        int n = snprintf(gap, sizeof gap, "{\"type\":\"gap\",\"lines_lost\":%llu}\n",
                         (unsigned long long)st.lost);

        if (write_whole(gap, (size_t)n) == 0)
            st.lost = 0;
    }
    if (st.lost == 0 && write_whole(text, len) == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    st.lost += lines;
    if (!st.write_failed) {
        st.write_failed = 1;
        vm_log("writing the trace to %s: %s; the trace ends, the JVM runs on untraced (the lines lost are "
               "counted in a gap line once the file takes lines again)", st.path, strerror(errno));
        stop_session("the trace file cannot be written");
    }
    return -1;
}

/* Writes msg as one line (lock held), as write_text; 0, or -1 when it
 * was not written. */
static int write_line(const json_t *msg)
{
    char *text;
    size_t len;
    int rc;

    if (st.file < 0)
        return -1;
    text = json_dumps(msg, JSON_COMPACT);
    if (text == NULL)
        return -1;
    len = strlen(text);
    text[len] = '\n';   /* the NUL is replaced: json_dumps's buffer holds len + 1 bytes */
    rc = write_text(text, len + 1);
    free(text);
    return rc;
}

/* The calls of the session, read into the model (lock held). */
static call_tab calls_tab;
static mct_call calls_last;
static mct_buf calls_text;

/* -n counted here (replies_counts_judged): the calls the timing gates
 * judge, warm-up ones left out, which the session, counting every call,
 * cannot tell; the lock guards them once the writer runs. */
static struct {
    long long want;             /* -n, 0: the session counts, or no -n */
    int include_warmup;
    long long judged;           /* calls written that the timing gates judge */
    int done;                   /* want were: the session was stopped, later calls are not the trace's */
} cnt;

/* The stop's detail when cnt.done. */
#define STARTUP_STOP_COUNT "count"

/* The gates (max-calls=, percentile=, fail-over-ms=, budget=), judged at
 * the end over the calls written or the final summary; st.lock guards
 * them once the writer runs. */
static struct {
    int on;
    struct gates specs;         /* borrow the trace's options (the agent's, for the JVM's life) */
    replies *judge;             /* every call written, the final summary; NULL when out of memory */
    char error[MCT_ERR_MSG];    /* why the gates cannot be judged, "" when they can */
} gt;

/* Sets the gates of t up; a failure is the gate line's at the end. */
static void gates_begin(const struct agent_trace_opts *t)
{
    mct_err e;

    if (!opts_gates(t, &gt.specs))
        return;
    gt.on = 1;
    /* A plain fail-over-ms is the specs' percentile 100 (opts_gates). */
    if ((gt.judge = replies_new(&gt.specs, t->req.include_warmup, -1, &e)) == NULL)
        snprintf(gt.error, sizeof gt.error, "the gates cannot be judged: %.400s", e.msg);
}

/* The gate line, right before the end (lock held): the verdict and one
 * message per failure; the JVM's exit status is not touched. */
static void gates_end(void)
{
    json_t *failures = json_array(), *gates = json_array(), *line;
    int rc = -1;
    mct_err e;

    if (!gt.on || failures == NULL || gates == NULL) {
        json_decref(failures);
        json_decref(gates);
        return;
    }
    gt.on = 0;
    st.rd.judge = NULL;
    if (gt.error[0] != '\0')
        mct_err_set(&e, MCT_E_INTERNAL, "%s", gt.error);
    else if ((rc = replies_verdict(gt.judge, failures, &e)) >= 0 && replies_cases(gt.judge, gates, &e) < 0)
        rc = -1;
    if (rc < 0) {
        json_array_append_new(failures, json_string(e.msg));
        json_array_clear(gates);
        json_array_append_new(gates, replies_case_new("the gates", 0, json_incref(failures)));
    }
    line = msg_gate_write(rc == 0, failures, gates);
    if (line != NULL)
        write_line(line);
    json_decref(line);
    replies_free(gt.judge);
    gt.judge = NULL;
}

/* The last line: end (the session's, or made here with reason), with
 * entry_loaded false when no plan came; closes the file (lock held). */
static void write_end(json_t *end, const char *reason)
{
    json_t *own = end != NULL ? json_incref(end) : msg_end_line_write(reason);

    if (own != NULL && !st.plan_seen)
        msg_end_mark_unloaded(own);
    gates_end();
    st.ended = 1;
    /* The end a full disk refused is tried again at the JVM's exit: space
     * may have come back by then. */
    if (own != NULL && write_line(own) < 0 && st.write_failed && !st.removed && st.file >= 0 &&
        (st.tail = json_dumps(own, JSON_COMPACT)) != NULL) {
        st.lost--;
        json_decref(own);
        return;
    }
    json_decref(own);
    if (st.file >= 0)
        close(st.file);
    st.file = -1;
}

/* At the JVM's exit (lock held): the end line a full disk refused, after
 * the gap line, if the file takes them now; the file closed. */
static void write_tail(void)
{
    size_t len = strlen(st.tail);
    char *line = realloc(st.tail, len + 2);

    if (line != NULL) {
        st.tail = line;
        memcpy(line + len, "\n", 2);
        write_text(line, len + 1);
    }
    free(st.tail);
    st.tail = NULL;
    close(st.file);
    st.file = -1;
}

/* The end of a session startup_end stopped says jvm_exit, as a client's
 * end at the JVM's exit does; one stopped after -n judged calls says
 * count, as the session's own count does. */
static void stop_to_exit(json_t *end)
{
    const char *detail = json_string_value(json_object_get(end, "detail"));

    if (strcmp(json_string_value(json_object_get(end, "reason")), "stop") != 0 || detail == NULL)
        return;
    if (strcmp(detail, SESSION_STOP_JVM_EXIT) == 0)
        msg_end_set_reason(end, "jvm_exit");
    else if (cnt.done && strcmp(detail, STARTUP_STOP_COUNT) == 0)
        msg_end_set_reason(end, "count");
}

/* A call (lock held): read into the model by the reader (proto_read
 * checked it), written by its one JSON writer. */
static int on_call(void *ctx, const call_tab *tab, const mct_call *c)
{
    (void)ctx;
    if (cnt.done) {
        /* Past -n: neither written nor judged (the reader judges after this). */
        st.rd.judge = NULL;
        return 0;
    }
    buf_reset(&calls_text);
    if (st.file >= 0 && call_json_line(&calls_text, tab, c) == 0)
        write_text((const char *)calls_text.data, calls_text.len);
    if (cnt.want > 0 && replies_timed(cnt.include_warmup, c) && ++cnt.judged >= cnt.want) {
        cnt.done = 1;
        stop_session(STARTUP_STOP_COUNT);
    }
    return 0;
}

/* A reply written as it came (lock held). */
static int on_line(void *ctx, const char *type, const json_t *m)
{
    (void)ctx;
    (void)type;
    write_line(m);
    return 0;
}

/* The plan: the entry class loaded. */
static int on_plan(void *ctx, json_t *m)
{
    st.plan_seen = 1;
    return on_line(ctx, "plan", m);
}

/* A summary, written by its one writer (as the session sent it); the
 * reader gives the final one to the judge. */
static int on_summary(void *ctx, const sum *s, const struct sum_info *info)
{
    mct_buf text;
    mct_err e;

    (void)ctx;
    if (st.file < 0)
        return 0;
    buf_init(&text);
    if (sum_write_json(s, info->final, &text, &e) == 0) {
        buf_ch(&text, '\n');
        if (!buf_failed(&text))
            write_text((const char *)text.data, text.len);
    }
    buf_free(&text);
    return 0;
}

/* A status, only with verbose. */
static int on_status(void *ctx, const json_t *m)
{
    return st.verbose ? on_line(ctx, "status", m) : 0;
}

/* An error: the end says so when the session sends none. */
static int on_error(void *ctx, const json_t *m)
{
    st.error_seen = 1;
    return on_line(ctx, "error", m);
}

/* The end: the last line; the writer stops. */
static int on_end(void *ctx, json_t *m)
{
    (void)ctx;
    stop_to_exit(m);
    write_end(m, NULL);
    return 1;
}

/* What the writer does with each reply of the session. */
static const struct reader_cb lines = {
    .on_plan = on_plan, .on_call = on_call, .on_summary = on_summary, .on_status = on_status,
    .on_end = on_end, .on_error = on_error, .on_other = on_line,
};

/* The writer: every reply of the session to a line, until its end. */
static void *writer_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd pfd = {.fd = st.sock, .events = POLLIN};
        mct_err e;
        json_t *m = NULL;
        uint32_t len;
        char *payload;
        int rc = -1;

        /* A session that sends nothing still ends when its file is gone. */
        if (poll(&pfd, 1, 1000) == 0) {
            pthread_mutex_lock(&st.lock);
            check_removed();
            pthread_mutex_unlock(&st.lock);
            continue;
        }
        payload = proto_read_payload(st.sock, PROTO_REPLY, -1, &len, &e);
        if (payload != NULL && !reader_is_summary(payload, len))
            m = proto_parse(payload, len, PROTO_REPLY, &e);
        pthread_mutex_lock(&st.lock);
        /* A summary is read straight into the compact model, not a tree. */
        if (payload != NULL && m == NULL && reader_is_summary(payload, len))
            rc = reader_summary_text(&st.rd, payload, len, &e);
        if (m == NULL && rc < 0) {
            if (e.code != MCT_E_EOF)
                vm_log("reading the startup trace's session: %s", e.msg);
            write_end(NULL, st.error_seen ? "error" : "agent_closed");
        } else if (m != NULL && reader_json(&st.rd, m, &e) < 0) {
            vm_log("reading the startup trace's session: %s", e.msg);
        }
        free(payload);
        if (st.ended) {
            st.running = 0;
            pthread_cond_broadcast(&st.cond);
            pthread_mutex_unlock(&st.lock);
            json_decref(m);
            break;
        }
        pthread_mutex_unlock(&st.lock);
        json_decref(m);
    }
    pthread_mutex_lock(&st.lock);
    close(st.sock);
    st.sock = -1;
    pthread_mutex_unlock(&st.lock);
    call_free(&calls_last);
    call_tab_free(&calls_tab);
    buf_free(&calls_text);
    return NULL;
}

/* out with every "{pid}" replaced by the JVM's pid, into st.path; -1 when
 * it does not fit. */
static int expand_path(const char *out)
{
    char pid[24];
    size_t used = 0, n;

    snprintf(pid, sizeof pid, "%d", (int)getpid());
    while (*out != '\0') {
        const char *part = strncmp(out, "{pid}", 5) == 0 ? pid : out;

        n = part == pid ? strlen(pid) : 1;
        if (used + n >= sizeof st.path)
            return -1;
        memcpy(st.path + used, part, n);
        used += n;
        out += part == pid ? 5 : 1;
    }
    st.path[used] = '\0';
    return 0;
}

/* Warns when st.path's directory lets other users put files there, then
 * creates st.path (never an existing file, never through a link) and
 * checks that it is the regular file this process owns; 0, or -1 said on stderr
 * (the JVM runs untraced). */
static int open_file(void)
{
    char dir[sizeof st.path];
    char *slash;
    struct stat sb;

    snprintf(dir, sizeof dir, "%s", st.path);
    slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir ? 1 : 0] = '\0';
    if (stat(dir, &sb) == 0 && (sb.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        vm_log("WARNING: the trace file's directory %s is writable by other users: one of them can create "
               "the file of a coming pid first (the JVM then runs untraced) or write a verdict of their own "
               "there; put out= in a directory only this user can write to (mode 0700), and check the "
               "file with 'mcalltree verdict'", dir);
    st.file = open(st.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0600);
    if (st.file < 0) {
        vm_log("cannot create the trace file %s: %s%s; the JVM runs untraced", st.path, strerror(errno),
               errno == EEXIST ? " (it is never overwritten or followed: remove it, or put {pid} in out=; "
                                 "if another user made it, use a directory only you can write to)" : "");
        return -1;
    }
    if (fstat(st.file, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid() || sb.st_nlink != 1) {
        vm_log("the trace file %s is not a regular file of this user's after creating it; the JVM runs "
               "untraced", st.path);
        close(st.file);
        st.file = -1;
        return -1;
    }
    return 0;
}

/* The start line. */
static json_t *start_line(const struct agent_trace_opts *t)
{
    char entry[3200];

    snprintf(entry, sizeof entry, "%s.%s%s", t->req.cls, t->req.method, req_desc(&t->req));
    return msg_start_write(&(struct msg_start){ .pid = getpid(), .vm = vm_facts()->name,
                                                .version = vm_facts()->version, .entry = entry });
}

void startup_begin(const struct agent_trace_opts *t, int verbose)
{
    struct mct_request r = t->req;  /* borrows t, which lives as long as the JVM */
    json_t *req, *start;
    pthread_t tid;
    int sv[2];

    if (st.started)
        return;
    st.started = 1;
    r.verbose = verbose;
    r.client_pid = getpid();
    if (replies_counts_judged(&t->req)) {
        /* The session would count warm-up calls too: the writer counts. */
        cnt.want = t->req.count;
        cnt.include_warmup = t->req.include_warmup;
        r.count = 0;
    }
    st.verbose = verbose;
    if (expand_path(t->req.out) < 0) {
        vm_log("out=%s is too long a file name; the JVM runs untraced", t->req.out);
        return;
    }
    if (open_file() < 0)
        return;
    req = msg_trace_write(&r);
    start = start_line(t);
    if (req == NULL || start == NULL || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        vm_log("cannot start the trace of %s.%s: %s; the JVM runs untraced", t->req.cls, t->req.method,
               req == NULL || start == NULL ? "out of memory" : strerror(errno));
        json_decref(req);
        json_decref(start);
        close(st.file);
        st.file = -1;
        return;
    }
    write_line(start);
    json_decref(start);
    gates_begin(t);
    reader_init(&st.rd, &calls_tab, &calls_last, gt.judge, &lines, NULL);
    st.sock = sv[0];
    st.running = 1;
    if (pthread_create(&tid, NULL, writer_main, NULL) != 0) {
        vm_log("cannot start the trace's writer thread; the JVM runs untraced");
        st.running = 0;
        write_end(NULL, "internal_error");
        close(sv[0]);
        close(sv[1]);
        json_decref(req);
        return;
    }
    pthread_detach(tid);
    session_start_local(sv[1], req);
}

void startup_end(void)
{
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += STARTUP_END_MS / 1000;
    until.tv_nsec += (STARTUP_END_MS % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&st.lock);
    if (st.running) {
        /* The session drains what completed, then ends (its end comes to
         * the writer); a write failure leaves the wait to its bound. */
        json_t *stop = msg_stop_write(&(struct msg_stop){.reason = SESSION_STOP_JVM_EXIT});
        mct_err e;

        if (stop == NULL || proto_write_within(st.sock, stop, STARTUP_END_MS, STARTUP_END_MS, &e) < 0)
            vm_debug("stopping the startup trace: %s", stop == NULL ? "out of memory" : e.msg);
        json_decref(stop);
    }
    while (st.running && pthread_cond_timedwait(&st.cond, &st.lock, &until) == 0)
        ;
    if (!st.ended && st.file >= 0)
        write_end(NULL, "jvm_exit");
    else if (st.tail != NULL)
        write_tail();
    pthread_mutex_unlock(&st.lock);
}
