/* jtok.h — a pull tokenizer of JSON lines, so that a reader builds what it
 * keeps straight from the text, without a document tree (the file readers of
 * summaries: summary.h). It reads from a FILE or from memory, a line at a
 * time: one value per line, '\n' ends it (a newline inside a value is an
 * error), spaces, tabs and CRs around tokens are skipped.
 *
 * It checks what a strict JSON parser checks (RFC 8259, as jansson does):
 * the grammar, strings (escapes, surrogate pairs, UTF-8, no control
 * character, no \u0000), numbers (integers within int64, reals finite),
 * nesting at most JT_DEPTH_MAX. It does not check that an object's keys
 * differ: that is the reader's business, which knows its keys. A line
 * longer than its limit is an error of its own (jt_too_long), also when the
 * line is not JSON, so that a file without newlines is read no further.
 *
 * Ownership: a jtok is the caller's (on its stack); jt_free frees its buffers.
 * The string of a token (t->str) is borrowed until the next call. */
#ifndef MCT_JTOK_H
#define MCT_JTOK_H

#include <stdint.h>
#include <stdio.h>

#include "buf.h"

#define JT_DEPTH_MAX 2048

enum jt_kind {
    JT_ERR = -1,        /* t->err says why; jt_too_long tells a long line */
    JT_EOF,             /* the input ended at the start of a line */
    JT_EOL,             /* the line ended: after its value, or a blank line */
    JT_OBJ, JT_OBJ_END, JT_ARR, JT_ARR_END,
    JT_KEY,             /* an object's key: t->str; the value follows */
    JT_STR, JT_INT, JT_REAL, JT_TRUE, JT_FALSE, JT_NULL
};

typedef struct jtok {
    FILE *f;                    /* NULL: reading mem */
    const unsigned char *mem;
    size_t memlen, mempos;
    unsigned char *in;          /* FILE input buffer */
    size_t inpos, inlen;
    int back;                   /* a byte given back, or -1 */
    size_t line_bytes, line_max;
    int state, depth, too_long, failed;
    int eol;                    /* the line's '\n' (or the end) was read */
    unsigned char stack[JT_DEPTH_MAX / 8];  /* 1: an object, 0: an array */
    char *str;                  /* the token's string, NUL-terminated */
    size_t len, cap;            /* its length (it may hold NULs: never, checked) */
    int64_t ival;               /* JT_INT's value */
    mct_buf *rec;               /* when set, every byte read is appended */
    char err[128];
} jtok;

/* Starts t over the stream f (not closed here), lines of at most line_max
 * bytes; 0, or -1 when out of memory. Free with jt_free. */
int jt_init_file(jtok *t, FILE *f, size_t line_max);

/* Starts t over the n bytes at p (borrowed while t is used). */
void jt_init_mem(jtok *t, const void *p, size_t n, size_t line_max);

/* Frees t's buffers. */
void jt_free(jtok *t);

/* The next token; JT_ERR with t->err once the input is not JSON lines
 * (sticky: every later call too, until jt_next_line). */
int jt_next(jtok *t);

/* Skips the value whose first token was kind (a container's inner tokens
 * included); 0, or -1 (JT_ERR). */
int jt_skip(jtok *t, int kind);

/* Reads the current line to its end, tokens checked: JT_EOL, or JT_ERR (a
 * syntax error, or the line over its limit) after which the line is
 * skipped byte by byte to its end (or to its limit). */
int jt_finish(jtok *t);

/* After a line ended (JT_EOL, JT_ERR): starts the next one. */
void jt_next_line(jtok *t);

/* Whether the current line ended (its JT_EOL returned) and the next
 * one has not begun. */
int jt_line_ended(const jtok *t);

/* Whether the line went past its limit. */
int jt_too_long(const jtok *t);

#endif
