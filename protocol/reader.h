/* reader.h — the one reader of a session's replies: one message at a time
 * (a parsed JSON object of the reply set, a compact call frame, or a
 * summary's text read straight into the compact summary of summary.h),
 * read once and handed to the callback of its type. The three sources (the
 * client's socket, client/trace.c; the wrap form's JVM files, client/wrap.c;
 * the agent's startup trace, agent/session/startup.c) only get the bytes or
 * lines and do what their callbacks say (print, write), so a call is read
 * into the model in one place and, with a judge, every call and the final
 * summary reach protocol/replies.h on the way.
 *
 * A callback returns 0 to go on, or a value > 0 that the reader returns
 * (the source's own "stop here"); a callback left NULL ignores its type.
 *
 * Ownership: a reader borrows its table of methods, its call, its judge and
 * its callbacks for its whole life; it owns nothing. */
#ifndef MCT_READER_H
#define MCT_READER_H

#include <jansson.h>

#include "call.h"
#include "err.h"
#include "replies.h"
#include "summary.h"

/* What a source does with each type of reply; ctx is the reader's. */
struct reader_cb {
    /* The plan message (a reference may be taken). */
    int (*on_plan)(void *ctx, json_t *plan);
    /* The call is valid until the next message read. */
    int (*on_call)(void *ctx, const call_tab *tab, const mct_call *c);
    /* A summary, read into the compact model (checked by sum_read);
     * valid for the callback's duration. */
    int (*on_summary)(void *ctx, const sum *summary, const struct sum_info *info);
    int (*on_status)(void *ctx, const json_t *status);
    /* The startup trace's verdict line: passed 1 or 0. */
    int (*on_gate)(void *ctx, int passed);
    /* The end message (the source may amend it before it writes it). */
    int (*on_end)(void *ctx, json_t *end);
    int (*on_error)(void *ctx, const json_t *error);
    /* Any other type (the startup trace's start line, a type this reader
     * does not know). */
    int (*on_other)(void *ctx, const char *type, const json_t *msg);
};

typedef struct {
    call_tab *tab;              /* the methods of the calls read */
    mct_call *call;             /* the last call read */
    replies *judge;             /* NULL: the source judges nothing here */
    const struct reader_cb *cb;
    void *ctx;                  /* passed to each callback */
} reader;

/* A reader of calls into tab and call, judged by judge (NULL: none),
 * handed to cb with ctx; all borrowed. */
void reader_init(reader *rd, call_tab *tab, mct_call *call, replies *judge, const struct reader_cb *cb,
                 void *ctx);

/* One message msg (it passed proto_validate or the wrap line check, so it
 * has a "type"): dispatched. 0 or a callback's value > 0; -1 with e set
 * when a call cannot be read (MCT_E_PROTO, MCT_E_NOMEM naming what). A
 * call the judge cannot count is not an error here: its verdict says so. */
int reader_json(reader *rd, json_t *msg, mct_err *e);

/* A summary read already (sum_read; info: what it said of itself),
 * taken (freed here, or kept by the judge when final): dispatched as by
 * reader_json. */
int reader_summary(reader *rd, sum *s, const struct sum_info *info);

/* Whether text (len bytes) is a summary object as the agent writes it
 * ("type" its first key), to be read by reader_summary_text. */
int reader_is_summary(const void *text, size_t len);

/* The summary object text (len bytes, untrusted) read by sum_read straight
 * into the compact model, without a document tree, and dispatched
 * (reader_summary). 0 or a callback's value > 0; -1 with e set when it
 * is not a valid summary (MCT_E_PROTO naming what) or out of memory. */
int reader_summary_text(reader *rd, const void *text, size_t len, mct_err *e);

/* Whether payload (len bytes, len > 0) is a compact call frame. */
int reader_is_compact(const unsigned char *payload, size_t len);

/* One compact frame (reader_is_compact): a method definition taken into
 * the table (0), or a call dispatched as by reader_json. */
int reader_compact(reader *rd, const unsigned char *payload, size_t len, mct_err *e);

#endif
