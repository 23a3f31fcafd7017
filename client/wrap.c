/* wrap.c — see wrap.h. */
#include "wrap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agentlib.h"
#include "buf.h"
#include "call.h"
#include "exit.h"
#include "gate.h"
#include "log.h"
#include "msg.h"
#include "output.h"
#include "reader.h"
#include "wrapline.h"

/* How often the files are looked at while COMMAND runs. */
#define WRAP_POLL_MS 100

/* What one look reads of a file at most, so that a JVM that writes faster
 * than it is read cannot keep signals from being forwarded or COMMAND's
 * exit from being seen. */
#define WRAP_PASS_BYTES ((size_t)1 << 20)

/* The memory held for lines not complete yet, all files together. */
#define WRAP_HELD_MAX ((size_t)128 * 1024 * 1024)

/* The statuses of a shell for a command it cannot run. */
#define WRAP_NOT_FOUND 127
#define WRAP_NOT_RUN 126

/* A growing string; on failure the buffer is freed and s is NULL. */
struct buf {
    char *s;
    size_t len, cap;
};

static void put_mem(struct buf *b, const char *p, size_t n)
{
    if (b->s == NULL && b->cap != 0)
        return;     /* an earlier failure */
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap > 0 ? b->cap : 256;
        char *s;

        while (b->len + n + 1 > cap)
            cap *= 2;
        s = realloc(b->s, cap);
        if (s == NULL) {
            free(b->s);
            b->s = NULL;
            b->cap = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

/* ---- the option string ---------------------------------------------------------------------- */

char *wrap_agent_options(const struct cli *c, const char *dir, mct_err *e)
{
    struct mct_request r = c->req;
    mct_buf b, file;
    uint8_t *s = NULL;
    size_t len;

    buf_init(&b);
    buf_init(&file);
    buf_printf(&file, "%s/{pid}.ndjson", dir);
    buf_ch(&file, '\0');
    if (!buf_failed(&file)) {
        r.out = (const char *)file.data;
        /* The gates are judged here, over what the files hold (wrap_run),
         * so none goes to the agent; but -n of judged calls is counted
         * there (replies_counts_judged), by the timing gates' rule. */
        req_optstr_write(&r, replies_counts_judged(&c->req), &b);
        buf_ch(&b, '\0');
        s = buf_steal(&b, &len);
    }
    buf_free(&b);
    buf_free(&file);
    if (s == NULL)
        mct_err_set(e, MCT_E_NOMEM, "out of memory");
    return (char *)s;
}

/* A new string of the texts in parts, NULL-terminated; NULL with e set. */
static char *join(mct_err *e, const char *const *parts)
{
    mct_buf b;
    uint8_t *s;
    size_t len;

    buf_init(&b);
    for (; *parts != NULL; parts++)
        buf_str(&b, *parts);
    buf_ch(&b, '\0');
    s = buf_steal(&b, &len);
    if (s == NULL)
        mct_err_set(e, MCT_E_NOMEM, "out of memory");
    return (char *)s;
}

char *wrap_agentpath(const char *lib, const char *options, mct_err *e)
{
    const char *quote = "";

    if (lib[0] != '/')
        return mct_err_set(e, MCT_E_ARG, "the agent library path %.200s is not absolute", lib), NULL;
    if (strchr(lib, '=') != NULL)
        return mct_err_set(e, MCT_E_ARG, "the agent library path %.200s has a '=', where the JVM "
                           "would cut it: move the library (--agent PATH)", lib), NULL;
    if (strpbrk(lib, " \t\n\v\f\r") != NULL)
        quote = strchr(lib, '"') == NULL ? "\"" : strchr(lib, '\'') == NULL ? "'" : NULL;
    if (quote == NULL)
        return mct_err_set(e, MCT_E_ARG, "the agent library path %.200s has whitespace and both "
                           "kinds of quotes, which JAVA_TOOL_OPTIONS cannot carry: move the library "
                           "(--agent PATH)", lib), NULL;
    return join(e, (const char *const[]){ quote, "-agentpath:", lib, "=", options, quote, NULL });
}

char *wrap_tool_options(const char *old, const char *word, mct_err *e)
{
    if (old != NULL && old[0] != '\0')
        return join(e, (const char *const[]){ old, " ", word, NULL });
    return join(e, (const char *const[]){ word, NULL });
}

/* ---- the JVMs' files ------------------------------------------------------------------------ */

/* One JVM, from its file <pid>.ndjson. */
struct jvm {
    long long pid;          /* from the file's name */
    int fd;                 /* -1 once closed */
    off_t at;               /* bytes read */
    off_t last;             /* after COMMAND's exit: the file's size then, read no further */
    struct buf line;        /* bytes of a line not complete yet */
    int started;            /* the start line came */
    int ended;              /* the end line came */
    int broken;             /* the file is not read further (said why) */
    long long calls;        /* calls written */
    long long summaries;    /* summaries written */
    int planned;            /* the plan line came: the entry class loaded */
    gate *gate;             /* --max-calls, --percentile, --budget; NULL: none */
    int judged;             /* the gates were judged, or cannot be (a typo) */
    const char *unjudged;   /* judged but without verdicts: why (--junit), or NULL */
};

struct wrap {
    const struct cli *c;
    char dir[PATH_MAX];     /* mode 0700; 0711 when it holds the library's copy */
    int dirfd;
    char lib[PATH_MAX + 32]; /* the agent library the JVMs load: the one found, or a copy in dir */
    out *out;
    struct jvm *jvms;
    size_t n_jvms;
    pid_t child;
    int output_broken;      /* the reader of the output went away (EPIPE) */
    int exited;             /* COMMAND exited: each file is read up to its size then */
    int more;               /* a file had more than one look reads */
    int trouble;            /* a trace could not be read or written, or the agent
                               refused it: the exit status that says so, 0: none */
    int over;               /* --fail-over-ms: a call took longer */
    long long written;      /* calls and summaries written, all JVMs */
    long long seen;         /* entry calls judged, all JVMs: calls (warm-up ones only with
                               --include-warmup) and final summaries' */
    size_t n_judged;        /* JVMs whose gates were judged */
    int gate_failed;        /* a JVM's gate failed */
    int gate_typo;          /* a gate names a method a JVM's plan does not trace */
    call_tab tab;           /* the calls' methods, all JVMs */
    mct_call call;          /* the last call read */
    reader rd;              /* the lines, to the callbacks below */
    struct jvm *cur;        /* the JVM whose line the reader has */
};

/* Stops reading j's file, and lets its line go; the reason was said. */
static void drop(struct wrap *w, struct jvm *j)
{
    j->broken = 1;
    free(j->line.s);
    j->line = (struct buf){ 0 };
    if (w->trouble == 0)
        w->trouble = MCT_EXIT_INTERNAL;
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
}

/* What a gate wrote on its stream (text, lines each led by "mcalltree: "),
 * said again naming j's pid. */
static void relay(const struct jvm *j, const char *text)
{
    static const char lead[] = "mcalltree: ";

    while (text != NULL && *text != '\0') {
        size_t n = strcspn(text, "\n");

        if (strncmp(text, lead, sizeof lead - 1) == 0 && n >= sizeof lead - 1)
            log_error("JVM pid %lld: %.*s", j->pid, (int)(n - (sizeof lead - 1)), text + sizeof lead - 1);
        else
            log_error("JVM pid %lld: %.*s", j->pid, (int)n, text);
        text += n + (text[n] == '\n');
    }
}

/* Judges j's gates once: on its final summary (--aggregate), else on the
 * calls fed to it. */
static void judge_gates(struct wrap *w, struct jvm *j, const sum *summary)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f;
    mct_err e;
    int rc;

    if (j->gate == NULL || j->judged)
        return;
    j->judged = 1;
    f = open_memstream(&text, &size);
    if (f == NULL) {
        log_error("JVM pid %lld: judging the gates: %s", j->pid, strerror(errno));
        j->unjudged = "the gates could not be judged (stderr says why)";
        w->trouble = MCT_EXIT_INTERNAL;
        return;
    }
    rc = summary != NULL ? gate_check(j->gate, summary, f, &e) : gate_finish(j->gate, f, &e);
    fclose(f);
    relay(j, text);
    free(text);
    if (rc < 0) {
        j->unjudged = "the gates could not be judged (stderr says why)";
        log_error("JVM pid %lld: judging the gates: %s", j->pid, e.msg);
        w->trouble = MCT_EXIT_INTERNAL;
        return;
    }
    w->n_judged++;
    w->gate_failed |= rc > 0;
}

/* A call took longer than a plain --fail-over-ms (with --percentile it
 * judges the run, in the gate): said once. */
static void check_over(struct wrap *w, const struct jvm *j, const char *what, double ms)
{
    if (w->c->req.fail_over_ms < 0 || w->c->req.percentile != 0 || ms <= w->c->req.fail_over_ms)
        return;
    if (!w->over)
        log_error("JVM pid %lld: %s took %.3f ms, over --fail-over-ms %g (exit status 4)", j->pid, what, ms,
                  w->c->req.fail_over_ms);
    w->over = 1;
}

/* Writes call c, or else summary (final: the run's last), of JVM j, tagged
 * with its pid, and counts it. When the output cannot be written, a reader
 * gone away (EPIPE) ends the output quietly; anything else is trouble. */
static void emit(struct wrap *w, struct jvm *j, const mct_call *c, const sum *summary, int final)
{
    mct_err e;

    if (w->output_broken)
        return;
    out_set_pid(w->out, j->pid);
    if ((c == NULL ? out_summary(w->out, summary, final, &e)
                   : out_call(w->out, &w->tab, c, &e) < 0 ? -1 : out_flush(w->out, &e)) < 0) {
        if (e.code != MCT_E_IO || errno != EPIPE) {
            log_error("%s", e.msg);
            w->trouble = MCT_EXIT_INTERNAL;
        }
        w->output_broken = 1;
        return;
    }
    if (c == NULL)
        j->summaries++;
    else
        j->calls++;
    w->written++;
}

static int on_call(void *ctx, const call_tab *tab, const mct_call *c)
{
    struct wrap *w = ctx;
    struct jvm *j = w->cur;
    char what[64];

    emit(w, j, c, NULL, 0);
    /* The reader hands every call to this JVM's gates too (on_line). */
    if (!gate_judges(w->c, c))
        return 0;
    w->seen++;
    snprintf(what, sizeof what, "call #%llu", (unsigned long long)c->seq);
    check_over(w, j, what, (double)c->nodes[0].total_ns / 1e6);
    return 0;
}

static int on_summary(void *ctx, const sum *summary, const struct sum_info *info)
{
    struct wrap *w = ctx;
    struct jvm *j = w->cur;

    if (info->final) {
        const sum_node *root = sum_root(summary);
        struct sum_view v = { .entry_max_ns = 0 };

        if (root != NULL)
            sum_node_view(summary, root, &v);
        w->seen += (long long)sum_calls(summary);
        check_over(w, j, "its slowest call", (double)v.entry_max_ns / 1e6);
        judge_gates(w, j, summary);
    }
    emit(w, j, NULL, summary, info->final);
    return 0;
}

/* The plan: every method a gate names must be traced (a typo in
 * --max-calls must not pass as "no such call"); such a JVM's gates are not
 * judged, and the run exits 1 (wrap.h). */
static int on_plan(void *ctx, json_t *msg)
{
    struct wrap *w = ctx;
    struct jvm *j = w->cur;
    struct msg_plan p;
    char *text = NULL;
    size_t size = 0;
    FILE *f;
    mct_err e;

    j->planned = 1;
    if (msg_plan_read(msg, &p, &e) < 0) {
        msg_plan_clear(&p);
        return 0;
    }
    log_verbose("JVM pid %lld: %lld method%s instrumented, %lld when their class loads, %lld "
                "left out", j->pid, p.summary.instrumented, p.summary.instrumented == 1 ? "" : "s",
                p.summary.pending, p.summary.excluded);
    if (j->gate != NULL && (f = open_memstream(&text, &size)) == NULL) {
        log_error("JVM pid %lld: checking the gates' methods: %s", j->pid, strerror(errno));
        w->trouble = MCT_EXIT_INTERNAL;
    } else if (j->gate != NULL) {
        int rc = gate_plan_check(j->gate, &p, f, &e);

        fclose(f);
        relay(j, text);
        free(text);
        if (rc < 0) {
            log_error("JVM pid %lld: %s; its gates are not judged (exit status 1)", j->pid, e.msg);
            j->judged = 1;
            j->unjudged = "not judged: a gate names a method this JVM's plan does not trace (stderr says which)";
            w->gate_typo = 1;
        }
    }
    msg_plan_clear(&p);
    return 0;
}

static int on_status(void *ctx, const json_t *msg)
{
    struct wrap *w = ctx;
    struct jvm *j = w->cur;
    struct msg_status m;
    mct_err e;

    if (msg_status_read(msg, &m, &e) == 0)
        log_verbose("JVM pid %lld: %lld call%s completed, %lld written%s%s", j->pid,
                    m.calls < 0 ? 0 : m.calls, m.calls == 1 ? "" : "s", m.printed < 0 ? 0 : m.printed,
                    m.note != NULL ? "; " : "", m.note != NULL ? m.note : "");
    return 0;
}

static int on_error(void *ctx, const json_t *msg)
{
    struct wrap *w = ctx;
    struct jvm *j = w->cur;
    struct msg_error m;
    mct_err e;

    if (msg_error_read(msg, &m, &e) < 0)
        return 0;
    log_error("JVM pid %lld: the agent reports %s: %s", j->pid, m.name, m.message);
    if (w->trouble == 0)
        w->trouble = proto_code_exit(m.code);
    return 0;
}

/* The agent's own verdict (its gate line): the client judges again. */
static int on_gate(void *ctx, int passed)
{
    struct wrap *w = ctx;

    log_verbose("JVM pid %lld: the agent's gates %s", w->cur->pid, passed ? "passed" : "failed");
    return 0;
}

/* What was written of j's trace, for the messages: "N calls written". */
static const char *written(const struct jvm *j)
{
    static char text[96];

    if (j->summaries > 0)
        snprintf(text, sizeof text, "%lld summar%s written", j->summaries, j->summaries == 1 ? "y" : "ies");
    else
        snprintf(text, sizeof text, "%lld call%s written", j->calls, j->calls == 1 ? "" : "s");
    return text;
}

/* At the end of j's trace (its end line, or its file's end), when its
 * entry class loaded: the gates on its calls, or, with --aggregate, a
 * failure when no final summary came (a gate that cannot be judged fails,
 * as one with no call does). */
static void end_gates(struct wrap *w, struct jvm *j)
{
    if (j->gate == NULL || j->judged || !j->planned)
        return;
    if (!w->c->req.aggregate) {
        judge_gates(w, j, NULL);
        return;
    }
    log_error("JVM pid %lld: its trace has no final summary, its gates cannot be judged (exit status 4)",
              j->pid);
    j->judged = 1;
    j->unjudged = "its trace has no final summary: the gates cannot be judged";
    w->n_judged++;
    w->gate_failed = 1;
}

/* j's end line (msg): what was written, and of the entry calls the JVM
 * saw, how many were traced, not traced (the agent busy) and warm-up. */
static void say_counts(const struct jvm *j, const json_t *msg)
{
    struct msg_end m;
    mct_err e;
    long long busy;

    if (msg_end_read(msg, &m, &e) < 0 || m.seen < 0 || m.calls < 0) {
        log_error("JVM pid %lld: %s", j->pid, written(j));
        return;
    }
    busy = m.dropped > 0 ? m.dropped - (m.discarded > 0 ? m.discarded : 0) : 0;
    log_error("JVM pid %lld: %s; of %lld entry call%s seen, %lld traced, %lld not traced%s, %lld warm-up", j->pid,
              written(j), m.seen, m.seen == 1 ? "" : "s", m.calls, busy,
              busy > 0 ? " (the agent was still building the trees of earlier ones)" : "", m.warmup > 0 ? m.warmup : 0);
}

static int on_end(void *ctx, json_t *msg)
{
    struct wrap *w = ctx;
    struct jvm *j = w->cur;
    const json_t *loaded = json_object_get(msg, "entry_loaded");

    j->ended = 1;
    if (loaded != NULL && !json_is_true(loaded)) {
        log_error("JVM pid %lld: %s never loaded, nothing traced", j->pid, w->c->req.cls);
        return 0;
    }
    say_counts(j, msg);
    end_gates(w, j);
    return 0;
}

/* What the lines of a JVM's file do, after its start line. */
static const struct reader_cb wrap_lines = {
    .on_plan = on_plan, .on_call = on_call, .on_summary = on_summary, .on_status = on_status,
    .on_gate = on_gate, .on_end = on_end, .on_error = on_error,
};

/* Handles one checked line of j's file: a JSON object o, or else a
 * summary (taken). */
static void on_line(struct wrap *w, struct jvm *j, json_t *o, sum *summary, const struct sum_info *info)
{
    const char *type = o != NULL ? json_string_value(json_object_get(o, "type")) : "summary";

    if (!j->started && strcmp(type, "start") != 0) {
        log_error("JVM pid %lld: its trace file does not begin with a \"start\" line; ignoring it",
                  j->pid);
        drop(w, j);
    } else if (strcmp(type, "start") == 0) {
        if (j->started || json_integer_value(json_object_get(o, "pid")) != j->pid) {
            log_error("JVM pid %lld: a second \"start\" line, or one of another pid, in its trace "
                      "file; ignoring the rest", j->pid);
            drop(w, j);
            return;
        }
        j->started = 1;
        log_error("JVM pid %lld (%s %s): tracing %s", j->pid,
                  json_string_value(json_object_get(o, "vm")),
                  json_string_value(json_object_get(o, "version")),
                  json_string_value(json_object_get(o, "entry")));
    } else if (j->ended) {
        log_error("JVM pid %lld: a \"%s\" line after the end; ignoring the rest", j->pid, type);
        drop(w, j);
    } else {
        mct_err e;

        w->cur = j;
        /* This JVM's calls go to its own gates, until it was judged. */
        w->rd.judge = j->gate != NULL && !j->judged ? gate_judge(j->gate) : NULL;
        /* Checked by wrapline_parse (call_json_check): read the same way. */
        if (summary != NULL) {
            reader_summary(&w->rd, summary, info);
            summary = NULL;
        } else if (reader_json(&w->rd, o, &e) < 0) {
            log_error("JVM pid %lld: a bad call in its trace file (%s); ignoring the rest", j->pid, e.msg);
            drop(w, j);
        }
    }
    sum_free(summary);
}

/* Handles the complete lines in j->line and keeps the rest. */
static void take_lines(struct wrap *w, struct jvm *j)
{
    size_t start = 0;
    char *nl;

    while (!j->broken && (nl = memchr(j->line.s + start, '\n', j->line.len - start)) != NULL) {
        size_t n = (size_t)(nl - (j->line.s + start));
        struct wrapline l;
        mct_err e;

        if (wrapline_parse(j->line.s + start, n, &l, &e) < 0) {
            log_error("JVM pid %lld: a bad line in its trace file (%s); ignoring the rest", j->pid, e.msg);
            drop(w, j);
            break;
        }
        start += n + 1;
        on_line(w, j, l.msg, l.summary, &l.info);
        json_decref(l.msg);
    }
    if (j->broken) {
        j->line.len = 0;
        return;
    }
    memmove(j->line.s, j->line.s + start, j->line.len - start);
    j->line.len -= start;
    if (j->line.len > WRAPLINE_MAX) {
        log_error("JVM pid %lld: a line over %zu bytes in its trace file; ignoring the rest", j->pid,
                  WRAPLINE_MAX);
        drop(w, j);
    }
}

/* The memory held for lines not complete yet, all files. */
static size_t held(const struct wrap *w)
{
    size_t total = 0;

    for (size_t i = 0; i < w->n_jvms; i++)
        total += w->jvms[i].line.cap;
    return total;
}

/* Reads what j's file has gained, WRAP_PASS_BYTES at most (w->more set
 * when there may be more); after COMMAND's exit, up to the size then. */
static void read_jvm(struct wrap *w, struct jvm *j)
{
    char chunk[65536];
    size_t pass = 0;

    while (j->fd >= 0 && !j->broken) {
        size_t want = sizeof chunk;
        ssize_t n;

        if (pass >= WRAP_PASS_BYTES) {
            w->more = 1;
            return;
        }
        if (w->exited && (off_t)want > j->last - j->at)
            want = (size_t)(j->last - j->at);
        if (want == 0)
            return;
        n = read(j->fd, chunk, want);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            log_error("JVM pid %lld: cannot read its trace file: %s", j->pid, strerror(errno));
            drop(w, j);
            return;
        }
        if (n == 0)
            return;
        j->at += n;
        pass += (size_t)n;
        if (j->line.len + (size_t)n + 1 > j->line.cap && held(w) + j->line.len + (size_t)n > WRAP_HELD_MAX) {
            log_error("JVM pid %lld: its lines not complete yet and the other JVMs' would take over %zu MiB; "
                      "ignoring the rest of its trace", j->pid, WRAP_HELD_MAX >> 20);
            drop(w, j);
            return;
        }
        put_mem(&j->line, chunk, (size_t)n);
        if (j->line.s == NULL) {
            log_error("JVM pid %lld: out of memory reading its trace file", j->pid);
            drop(w, j);
            return;
        }
        take_lines(w, j);
    }
}

/* The pid of a file named <pid>.ndjson, or 0. */
static long long file_pid(const char *name)
{
    char *end;
    long long pid;

    if (name[0] < '1' || name[0] > '9')
        return 0;
    errno = 0;
    pid = strtoll(name, &end, 10);
    if (errno != 0 || pid > INT_MAX || strcmp(end, ".ndjson") != 0)
        return 0;
    return pid;
}

/* Whether the file st, named for pid, is that JVM's: this user's, or that
 * of the user pid runs as, with one name. */
static int own_file(long long pid, const struct stat *st)
{
    char proc[64];
    struct stat ps;

    if (st->st_nlink != 1)
        return 0;
    if (st->st_uid == geteuid())
        return 1;
    snprintf(proc, sizeof proc, "/proc/%lld", pid);
    return stat(proc, &ps) == 0 && ps.st_uid == st->st_uid;
}

/* Opens the files that appeared since the last look. */
static void find_files(struct wrap *w)
{
    int fd = openat(w->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;

    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        long long pid = file_pid(de->d_name);
        struct jvm *more;
        struct stat st;
        size_t i;

        if (pid == 0)
            continue;
        for (i = 0; i < w->n_jvms && w->jvms[i].pid != pid; i++)
            ;
        if (i < w->n_jvms)
            continue;
        more = realloc(w->jvms, (w->n_jvms + 1) * sizeof *more);
        if (more == NULL)
            break;
        w->jvms = more;
        w->jvms[w->n_jvms] = (struct jvm){ .pid = pid, .fd = -1 };
        if (gate_wanted(w->c)) {
            mct_err e;

            w->jvms[w->n_jvms].gate = gate_new(w->c, &e);
            if (w->jvms[w->n_jvms].gate == NULL) {
                log_error("JVM pid %lld: %s", pid, e.msg);
                w->trouble = MCT_EXIT_INTERNAL;
            }
        }
        w->jvms[w->n_jvms].fd = openat(w->dirfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (w->jvms[w->n_jvms].fd < 0 || fstat(w->jvms[w->n_jvms].fd, &st) < 0 || !S_ISREG(st.st_mode)) {
            log_error("JVM pid %lld: cannot read its trace file %s/%s", pid, w->dir, de->d_name);
            drop(w, &w->jvms[w->n_jvms]);
        } else if (!own_file(pid, &st)) {
            log_error("JVM pid %lld: its trace file %s/%s belongs to uid %u, neither this user nor that "
                      "process (gone, or another user's): not read", pid, w->dir, de->d_name,
                      (unsigned)st.st_uid);
            drop(w, &w->jvms[w->n_jvms]);
        } else {
            w->jvms[w->n_jvms].last = st.st_size;   /* read up to, once COMMAND exited */
        }
        w->n_jvms++;
    }
    closedir(d);
}

static void read_all(struct wrap *w)
{
    w->more = 0;
    find_files(w);
    for (size_t i = 0; i < w->n_jvms; i++)
        read_jvm(w, &w->jvms[i]);
}

/* After COMMAND's exit: reads each file up to its size now (a JVM that
 * outlives COMMAND may write on), a look at a time. */
static void read_rest(struct wrap *w)
{
    struct stat st;

    find_files(w);
    w->exited = 1;
    for (size_t i = 0; i < w->n_jvms; i++) {
        struct jvm *j = &w->jvms[i];

        j->last = j->fd >= 0 && fstat(j->fd, &st) == 0 ? st.st_size : j->at;
    }
    do
        read_all(w);
    while (w->more);
}

/* After COMMAND's exit: what each JVM's file lacks. */
static void judge_files(struct wrap *w)
{
    for (size_t i = 0; i < w->n_jvms; i++) {
        struct jvm *j = &w->jvms[i];

        if (j->broken || j->ended)
            continue;
        if (!j->started && j->line.len == 0)
            log_error("JVM pid %lld: its trace file is empty (the agent did not start the trace; "
                      "see the JVM's stderr)", j->pid);
        else if (kill((pid_t)j->pid, 0) == 0)
            log_error("JVM pid %lld: still running after COMMAND exited (%s); its trace ends here: its "
                      "trace file is removed, and its agent ends the trace within a second", j->pid, written(j));
        else
            log_error("JVM pid %lld: its trace file ends without an \"end\" line (the JVM was "
                      "killed?); %s", j->pid, written(j));
        end_gates(w, j);
    }
    if (w->n_jvms == 0)
        log_error("no JVM loaded the agent: COMMAND started no JVM, or its JVMs ignored "
                  "JAVA_TOOL_OPTIONS (not HotSpot, or older than JDK 9), or COMMAND cleared it (sudo, su "
                  "without -m, env -i), or a JVM could not create its trace file (its stderr says why)");
}

/* ---- COMMAND ---------------------------------------------------------------------------------- */

/* The signals that end COMMAND's run, forwarded to it when a process (not
 * the terminal) sent them to mcalltree: a hang-up too, so that a closed
 * session neither orphans COMMAND nor leaves the private directory. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define N_FORWARDED (sizeof forwarded / sizeof forwarded[0])
static volatile sig_atomic_t pending[N_FORWARDED];

/* One from the terminal (the kernel sends it to the whole foreground
 * process group, COMMAND included) is not forwarded: COMMAND has it. */
static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)ctx;
    if (si != NULL && si->si_code > 0)
        return;
    for (size_t i = 0; i < N_FORWARDED; i++)
        if (forwarded[i] == sig)
            pending[i] = 1;
}

static int catch_signals(mct_err *e)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    for (size_t i = 0; i < N_FORWARDED; i++)
        if (sigaction(forwarded[i], &sa, NULL) < 0)
            return mct_err_set(e, MCT_E_IO, "sigaction: %s", strerror(errno));
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    if (sigaction(SIGPIPE, &sa, NULL) < 0)
        return mct_err_set(e, MCT_E_IO, "sigaction: %s", strerror(errno));
    return 0;
}

static void forward_signals(pid_t child)
{
    for (size_t i = 0; i < N_FORWARDED; i++)
        if (pending[i]) {
            pending[i] = 0;
            kill(child, forwarded[i]);
        }
}

/* Starts COMMAND (a PATH search) with the environment as it is; the pid,
 * or -1 with *status set when it could not run (said on stderr). */
static pid_t spawn(char **cmd, int *status)
{
    int pipefd[2], err = 0;
    ssize_t n;
    pid_t pid;

    if (pipe2(pipefd, O_CLOEXEC) < 0) {
        log_error("pipe: %s", strerror(errno));
        *status = MCT_EXIT_INTERNAL;
        return -1;
    }
    pid = fork();
    if (pid < 0) {
        log_error("cannot start %s: fork: %s", cmd[0], strerror(errno));
        close(pipefd[0]);
        close(pipefd[1]);
        *status = MCT_EXIT_INTERNAL;
        return -1;
    }
    if (pid == 0) {
        /* COMMAND gets the dispositions a shell would give it. */
        signal(SIGPIPE, SIG_DFL);
        for (size_t i = 0; i < N_FORWARDED; i++)
            signal(forwarded[i], SIG_DFL);
        execvp(cmd[0], cmd);
        err = errno;
        n = write(pipefd[1], &err, sizeof err);
        (void)n;
        _exit(WRAP_NOT_FOUND);
    }
    close(pipefd[1]);
    do
        n = read(pipefd[0], &err, sizeof err);
    while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n != (ssize_t)sizeof err)
        return pid;     /* the exec closed the pipe: COMMAND runs */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (err == ENOENT) {
        log_error("%s: command not found (exit status %d)", cmd[0], WRAP_NOT_FOUND);
        *status = WRAP_NOT_FOUND;
    } else {
        log_error("cannot run %s: %s (exit status %d)", cmd[0], strerror(err), WRAP_NOT_RUN);
        *status = WRAP_NOT_RUN;
    }
    return -1;
}

/* Waits for COMMAND, reading the files every WRAP_POLL_MS; its status as a
 * shell gives it. */
static int supervise(struct wrap *w)
{
    int status;

    for (;;) {
        struct timespec ts = { 0, WRAP_POLL_MS * 1000000L };
        pid_t r;

        forward_signals(w->child);
        read_all(w);
        r = waitpid(w->child, &status, WNOHANG);
        if (r == w->child)
            break;
        if (r < 0 && errno != EINTR) {
            log_error("waiting for COMMAND: %s", strerror(errno));
            return MCT_EXIT_INTERNAL;
        }
        if (!w->more)
            nanosleep(&ts, NULL);
    }
    read_rest(w);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* ---- the run ------------------------------------------------------------------------------------ */

/* Creates the private directory; 0 or -1 with e set. */
static int make_dir(struct wrap *w, mct_err *e)
{
    const char *tmp = getenv("TMPDIR");

    if (tmp == NULL || tmp[0] == '\0')
        tmp = "/tmp";
    if ((size_t)snprintf(w->dir, sizeof w->dir, "%s/mcalltree-wrap.XXXXXX", tmp) >= sizeof w->dir)
        return mct_err_set(e, MCT_E_ARG, "TMPDIR is too long");
    if (mkdtemp(w->dir) == NULL)
        return mct_err_set(e, MCT_E_IO, "cannot create a directory in %s for the JVMs' traces: %s "
                           "(set TMPDIR to a writable directory)", tmp, strerror(errno));
    w->dirfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (w->dirfd < 0) {
        int err = errno;

        rmdir(w->dir);
        return mct_err_set(e, MCT_E_IO, "cannot open %s: %s", w->dir, strerror(err));
    }
    return 0;
}

/* Whether every user can load lib (every directory above it searchable,
 * the file readable): else a COMMAND that changes user runs JVMs that
 * cannot, and refuse to start. */
static int lib_public(const char *lib)
{
    char path[PATH_MAX];
    struct stat st;
    char *slash;

    snprintf(path, sizeof path, "%s", lib);
    if (stat(path, &st) < 0 || (st.st_mode & S_IROTH) == 0)
        return 0;
    while ((slash = strrchr(path, '/')) != NULL && slash != path) {
        *slash = '\0';
        if (stat(path, &st) < 0 || (st.st_mode & S_IXOTH) == 0)
            return 0;
    }
    return 1;
}

/* w->lib: lib, or a copy of it in w->dir (mode 0755, the directory then
 * 0711) when not every user can load lib, so that a JVM of a COMMAND that
 * changes user (setpriv, runuser, su -m) still starts; 0 or -1 with e set. */
static int place_lib(struct wrap *w, const char *lib, mct_err *e)
{
    char chunk[65536];
    int in, outfd, rc = 0;
    ssize_t n;

    snprintf(w->lib, sizeof w->lib, "%s", lib);
    if (lib_public(lib))
        return 0;
    in = open(lib, O_RDONLY | O_CLOEXEC);
    outfd = openat(w->dirfd, "libmcalltree.so", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
    if (in < 0 || outfd < 0 || fchmod(outfd, 0755) < 0 || fchmod(w->dirfd, 0711) < 0)
        rc = -1;
    while (rc == 0 && (n = read(in, chunk, sizeof chunk)) != 0)
        if (n < 0 ? errno != EINTR : write(outfd, chunk, (size_t)n) != n)
            rc = -1;
    if (rc < 0)
        mct_err_set(e, MCT_E_IO, "cannot copy the agent library %s into %s, where every user can load it: %s",
                    lib, w->dir, strerror(errno));
    if (in >= 0)
        close(in);
    if (outfd >= 0 && close(outfd) < 0 && rc == 0)
        rc = mct_err_set(e, MCT_E_IO, "writing %s/libmcalltree.so: %s", w->dir, strerror(errno));
    if (rc == 0)
        snprintf(w->lib, sizeof w->lib, "%s/libmcalltree.so", w->dir);
    return rc;
}

/* Removes what a directory holds (one level); said with -v when it cannot. */
static void empty_dir(int dirfd, const char *path)
{
    int fd = dirfd >= 0 ? openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;

    if (d != NULL) {
        while ((de = readdir(d)) != NULL)
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
                unlinkat(dirfd, de->d_name, 0) < 0)
                log_verbose("cannot remove %s/%s: %s", path, de->d_name, strerror(errno));
        closedir(d);
    } else if (fd >= 0) {
        close(fd);
    }
}

/* Removes the directory and what the JVMs left in it. */
static void remove_dir(struct wrap *w)
{
    empty_dir(w->dirfd, w->dir);
    close(w->dirfd);
    if (rmdir(w->dir) < 0)
        log_error("cannot remove %s: %s", w->dir, strerror(errno));
}

/* Whether old (JAVA_TOOL_OPTIONS) loads this agent (lib, or a library
 * named libmcalltree.so) with a trace= already: a JVM takes one startup
 * trace, and keeps the first. */
static int has_trace(const char *old, const char *lib)
{
    static const char key[] = "-agentpath:", name[] = "libmcalltree.so";

    for (const char *p = old; p != NULL && (p = strstr(p, key)) != NULL; p += sizeof key - 1) {
        const char *path = p + sizeof key - 1;
        size_t word = strcspn(path, " \t\n\"'"), len = strcspn(path, "=");

        if (len < word && ((len == strlen(lib) && strncmp(path, lib, len) == 0) ||
                           (len >= sizeof name - 1 && strncmp(path + len - (sizeof name - 1), name,
                                                              sizeof name - 1) == 0))) {
            for (const char *o = path + len; o < path + word; o++)
                if ((o[-1] == '=' || o[-1] == ',') && strncmp(o, "trace=", 6) == 0)
                    return 1;
        }
    }
    return 0;
}

/* Sets JAVA_TOOL_OPTIONS for COMMAND; 0 or -1 with e set (MCT_E_ARG: the
 * library cannot be named there; MCT_E_UNSUPPORTED: the variable has a
 * trace already). */
static int set_tool_options(struct wrap *w, const char *lib, mct_err *e)
{
    char *opts, *word = NULL, *all = NULL;
    int rc = -1;

    if (has_trace(getenv("JAVA_TOOL_OPTIONS"), lib))
        return mct_err_set(e, MCT_E_UNSUPPORTED, "JAVA_TOOL_OPTIONS already loads mcalltree with a trace=: a JVM "
                           "takes one startup trace and keeps the first, so this one would be lost; remove "
                           "it from JAVA_TOOL_OPTIONS (COMMAND does not run)");
    if (place_lib(w, lib, e) < 0)
        return -1;
    opts = wrap_agent_options(w->c, w->dir, e);
    if (opts != NULL)
        word = wrap_agentpath(w->lib, opts, e);
    if (word != NULL)
        all = wrap_tool_options(getenv("JAVA_TOOL_OPTIONS"), word, e);
    if (all != NULL) {
        rc = setenv("JAVA_TOOL_OPTIONS", all, 1);
        if (rc < 0)
            mct_err_set(e, MCT_E_NOMEM, "setenv: %s", strerror(errno));
        else
            log_verbose("JAVA_TOOL_OPTIONS=%s", all);
    }
    free(all);
    free(word);
    free(opts);
    return rc;
}

/* The exit status from COMMAND's and what the traces said (wrap.h). */
static int verdict(struct wrap *w, int status)
{
    int gate_failed = w->over || w->gate_failed;

    if (gate_wanted(w->c) && w->n_judged == 0 && !w->gate_typo) {
        log_error("the gates: no JVM traced a call of %s.%s%s, nothing to judge (exit status 4)",
                  w->c->req.cls, w->c->req.method, req_desc(&w->c->req));
        gate_failed = 1;
    } else if (!gate_wanted(w->c) && w->c->req.fail_over_ms >= 0 && w->seen == 0) {
        log_error("--fail-over-ms %g: no call to judge, none was written (exit status 4)",
                  w->c->req.fail_over_ms);
        gate_failed = 1;
    }
    if (status != 0) {
        if (gate_failed || w->gate_typo)
            log_error("COMMAND's exit status %d is mcalltree's, before the gates' %d", status,
                      w->gate_typo ? MCT_EXIT_USAGE : MCT_EXIT_FAILOVER);
        return status;
    }
    if (w->gate_typo)
        return MCT_EXIT_USAGE;
    if (gate_failed)
        return MCT_EXIT_FAILOVER;
    return w->trouble;
}

/* The cases of j's gates (gate_cases), or one failed case saying why it
 * has none; NULL when out of memory. */
static json_t *jvm_cases(const struct jvm *j)
{
    mct_err e;

    if (j->judged && j->unjudged == NULL)
        return gate_cases(j->gate, &e);
    return gate_unjudged(j->unjudged != NULL ? j->unjudged
                         : "not judged: its trace file could not be read to its end (stderr says why)");
}

/* The gates' verdicts of each JVM that loaded the entry class, each case
 * tagged with its "pid", or one failed case when no JVM traced a call: a
 * fact of the output (the page of -f html shows them) and, with --junit,
 * a JUnit report (a suite per JVM); the exit status, status unless out of
 * memory or the report cannot be written. */
static int report_gates(const struct wrap *w, int status)
{
    const struct cli *c = w->c;
    junit *ju = c->junit != NULL ? junit_new() : NULL;
    json_t *all = json_array();
    char suite[3300];
    int rc = all != NULL && (c->junit == NULL || ju != NULL) ? 0 : -1;
    mct_err e;

    for (size_t i = 0; rc == 0 && i < w->n_jvms; i++) {
        const struct jvm *j = &w->jvms[i];
        json_t *cases;

        if (j->gate == NULL || !j->planned)
            continue;
        snprintf(suite, sizeof suite, "mcalltree %s.%s%s (JVM pid %lld)", c->req.cls, c->req.method,
                 req_desc(&c->req), j->pid);
        cases = jvm_cases(j);
        rc = cases != NULL && (ju == NULL || gate_cases_junit(cases, ju, suite) == 0) ? 0 : -1;
        for (size_t k = 0; rc == 0 && k < json_array_size(cases); k++) {
            rc = json_array_append_new(all, msg_with_pid(json_array_get(cases, k), j->pid));
        }
        json_decref(cases);
    }
    if (rc == 0 && json_array_size(all) == 0) {
        json_t *none = gate_unjudged("no JVM traced a call of the entry method: nothing to judge");

        snprintf(suite, sizeof suite, "mcalltree %s.%s%s", c->req.cls, c->req.method, req_desc(&c->req));
        rc = none != NULL && (ju == NULL || gate_cases_junit(none, ju, suite) == 0) &&
             json_array_extend(all, none) == 0 ? 0 : -1;
        json_decref(none);
    }
    if (rc < 0)
        mct_err_set(&e, MCT_E_NOMEM, "the gates' verdicts: out of memory");
    else
        out_fact(w->out, "gates", all);
    if (rc == 0 && ju != NULL)
        rc = junit_write(ju, c->junit, &e);
    junit_free(ju);
    json_decref(all);
    if (rc == 0)
        return status;
    log_error("%s", e.msg);
    return status == MCT_EXIT_OK || status == MCT_EXIT_FAILOVER ? MCT_EXIT_USAGE : status;
}

int wrap_run(const struct cli *c)
{
    struct wrap w = { .c = c, .dirfd = -1 };
    char lib[PATH_MAX];
    int status = MCT_EXIT_OK;
    mct_err e;

    reader_init(&w.rd, &w.tab, &w.call, NULL, &wrap_lines, &w);
    if (catch_signals(&e) < 0) {
        log_error("%s", e.msg);
        return MCT_EXIT_INTERNAL;
    }
    if (agentlib_find(c->agent, lib, sizeof lib, &e) < 0) {
        log_error("%s", e.msg);
        return MCT_EXIT_ATTACH;
    }
    w.out = out_open(c->format, c->output, c->slow_ms, &e);
    if (w.out == NULL) {
        log_error("%s", e.msg);
        return MCT_EXIT_USAGE;
    }
    out_export_options(w.out, c, 0);
    w.out->value = c->folded_value;
    if (make_dir(&w, &e) < 0) {
        log_error("%s", e.msg);
        out_close(w.out, &e);
        return MCT_EXIT_INTERNAL;
    }
    if (set_tool_options(&w, lib, &e) < 0) {
        log_error("%s", e.msg);
        status = e.code == MCT_E_ARG ? MCT_EXIT_ATTACH
                 : e.code == MCT_E_UNSUPPORTED ? MCT_EXIT_USAGE : MCT_EXIT_INTERNAL;
    } else {
        w.child = spawn(c->command, &status);
        if (w.child > 0) {
            status = supervise(&w);
            judge_files(&w);
            status = verdict(&w, status);
        }
    }
    /* Each gate judged again on its own: only for who shows them. */
    if (gate_wanted(c) && (c->junit != NULL || c->format == CLI_FORMAT_HTML))
        status = report_gates(&w, status);
    for (size_t i = 0; i < w.n_jvms; i++) {
        if (w.jvms[i].fd >= 0)
            close(w.jvms[i].fd);
        free(w.jvms[i].line.s);
        gate_free(w.jvms[i].gate);
    }
    free(w.jvms);
    call_free(&w.call);
    call_tab_free(&w.tab);
    remove_dir(&w);
    if (out_close(w.out, &e) < 0 && !w.output_broken) {
        log_error("%s", e.msg);
        if (status == MCT_EXIT_OK)
            status = MCT_EXIT_INTERNAL;
    }
    return status;
}
