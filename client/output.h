/* output.h — where the call trees go (stdout or -o FILE) and in which format
 * (SPEC §2 -f): json, tree, chrome, folded or html. The trace loop hands each
 * call (the model of protocol/call.h, however it came) to out_call as it
 * arrives; formats that need a document
 * around the calls (chrome) write its start in out_open and its end in
 * out_close. A summary of many calls ({"type":"summary",...}) goes
 * to out_summary; the chrome format has no summary form. The html format
 * writes one page at out_close; the session's facts (the agent's hello, the
 * request, the plan's summary, the end) reach it through out_fact, which
 * the other formats ignore.
 *
 * The wrap form (client/wrap.h) and several JVMs' sessions (client/multi.h)
 * write objects of several JVMs through one output, each after out_set_pid
 * (the latter also name the host, out_set_host): json adds "pid" to each
 * object, tree writes a "pid N" line when the JVM changes, chrome uses the
 * pid as the events' process, folded leaves its lines untagged (a flame
 * graph of the whole command sums equal stacks of all its JVMs). */
#ifndef MCT_OUTPUT_H
#define MCT_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "cli.h"
#include "buf.h"
#include "call.h"
#include "err.h"
#include "summary.h"

typedef struct out out;

/* What a format implements (one per fmt_*.c). */
struct out_format {
    int (*begin)(out *o);                   /* may be NULL */
    /* A call (methods in t), into f or o->text (written by output.c). */
    int (*call)(out *o, const call_tab *t, const mct_call *c);
    int (*summary)(out *o, const sum *s, int final);  /* NULL: not offered */
    int (*end)(out *o);                     /* may be NULL */
    /* A fact of the session under key (out_fact); NULL: not shown. */
    void (*fact)(out *o, const char *key, const json_t *value);
};

/* Where -f otlp and -f rows send (fmt_export.c): set by out_set_export
 * before the first call; strings borrowed for the output's life. */
struct out_export {
    const char *url;            /* the server, or NULL: write to f */
    const char *service;        /* otlp: service.name, or NULL (the JVM's main class or jar) */
    long long pid;              /* the JVM's pid, when out_set_pid gives none */
};

struct out {
    FILE *f;
    int close_f;        /* f was opened by out_open */
    int color;          /* ANSI colours (tree, on a terminal, NO_COLOR unset) */
    double slow_ms;     /* --slow-ms, < 0 when not given */
    enum out_value value; /* folded: what a stack counts (--folded-value; set after out_open) */
    unsigned long calls;/* calls written so far */
    unsigned long summaries; /* summaries written so far */
    long long pid;      /* the JVM of the next object (out_set_pid), 0: untagged */
    long long pid_shown;/* tree: the pid of the last "pid N" line, 0: none */
    const char *host;   /* the JVMs' host (out_set_host), shown with their pid; NULL: not shown */
    const struct out_format *fmt;
    void *state;        /* the format's own, freed by its end() */
    mct_buf text;       /* lines a format left for output.c to write, not in f yet */
    int dirty;          /* written since the last flush */
    char *buf;          /* f's buffer when out_open opened f, or NULL */
    struct out_export export; /* -f otlp and -f rows (out_set_export) */
    int abandoned;      /* out_abandon: nothing more is written */
};

extern const struct out_format fmt_json, fmt_tree, fmt_chrome, fmt_folded, fmt_html, fmt_otlp, fmt_rows;
/* A session's calls and summaries as the agent's reply frames, for the
 * process that runs several JVMs' sessions (client/multi.c). */
extern const struct out_format fmt_frames;

/* Gives up on the output when a stop is due and writing it is blocked
 * (nobody reads the pipe): what is buffered is dropped, and out_call,
 * out_flush and out_close write nothing from now on. */
void out_abandon(out *o);

/* Opens the output: path NULL means stdout. Returns NULL with e set when
 * the file cannot be created. */
out *out_open(enum cli_format format, const char *path, double slow_ms, mct_err *e);

/* Writes call c (methods in t), leaving it buffered until out_flush; 0, or
 * -1 with e set when the output cannot be written (EPIPE included: errno is
 * kept). */
int out_call(out *o, const call_tab *t, const mct_call *c, mct_err *e);

/* Flushes what out_call left buffered; 0, or -1 with e set. */
int out_flush(out *o, mct_err *e);

/* Writes summary s (final: the run's last; read by sum_read, or merged),
 * each format straight from the compact model; 0, or -1 with e
 * set: MCT_E_ARG when the format has no summary form (chrome), MCT_E_IO
 * when the output cannot be written. */
int out_summary(out *o, const sum *s, int final, mct_err *e);

/* Hands a fact of the session (value borrowed for the call: a format that
 * keeps it copies it) to the format, for the formats that show them. */
void out_fact(out *o, const char *key, const json_t *value);

/* Where -f otlp and -f rows send (x copied, its strings borrowed); call
 * before the first call. */
void out_set_export(out *o, const struct out_export *x);

/* out_set_export from the command line's options; pid: the JVM traced, 0
 * when out_set_pid names each (the wrap form). */
void out_export_options(out *o, const struct cli *c, long long pid);

/* Tags the objects written from now on with the JVM's pid (> 0; 0:
 * untagged again). */
void out_set_pid(out *o, long long pid);

/* Objects tagged with a pid also name host (borrowed for the output's
 * life): json adds "host" after "pid", tree its "pid N" line "on HOST". */
void out_set_host(out *o, const char *host);

/* Finishes the document, flushes and closes; 0 or -1 with e set. Frees o. */
int out_close(out *o, mct_err *e);

#endif
