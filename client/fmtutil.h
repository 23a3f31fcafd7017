/* fmtutil.h — what the output formats (fmt_json, fmt_tree, fmt_chrome,
 * fmt_folded) share (a call comes as the model of protocol/call.h, a
 * summary as the compact sum of protocol/summary.h, both checked when they
 * were read): human-readable durations; and text and JSON that are safe to
 * print on a terminal. */
#ifndef MCT_FMTUTIL_H
#define MCT_FMTUTIL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "buf.h"

#define FU_MAX_DEPTH 64     /* nodes nest at most this deep, the root included */
#define FU_DUR_MAX 24       /* room for the text of fu_duration */

/* Writes ns as a duration with 3 significant digits into buf ("812 ns",
 * "12.3 µs", "1.20 ms", "61.0 s"), the unit chosen after rounding, so never
 * "1000 µs". Whole nanoseconds below 1 µs; seconds above 999 s. */
void fu_duration(char *buf, size_t size, double ns);

/* Writes v bytes into buf: "512 B", "12.3 KiB", "4.00 MiB", "1.50 GiB". */
void fu_bytes(char *buf, size_t size, unsigned long long v);

/* The number of terminal columns UTF-8 text s takes (one per code point). */
size_t fu_width(const char *s);

/* Writes s right-aligned in width columns (no padding when wider). */
void fu_put_right(FILE *f, const char *s, size_t width);

/* Writes s with every control character (C0, DEL, C1) and every byte that
 * is not well-formed UTF-8 replaced by '?', so that text from the JVM (a
 * class, method or thread name, a message) cannot move the cursor or change
 * colours. */
void fu_put_text(FILE *f, const char *s);

/* Replaces in place what fu_put_text replaces, for text printed otherwise
 * (the client's messages). */
void fu_clean(char *s);

/* Writes j as JSON with jansson's dump flags to f, DEL and the C1 controls
 * (U+0080..U+009F), which jansson leaves raw, written as \u007F and
 * \u0080 .. \u009F: the JSON means the same, and text from the JVM in it cannot
 * drive a terminal. 0, or -1 when j cannot be rendered or f fails. */
int fu_json_dump(FILE *f, const json_t *j, size_t flags);

/* The JSON text of b from byte from on with DEL and the C1 controls
 * escaped as fu_json_dump escapes them (in JSON text they are only in
 * strings); -1 when out of memory (b's text then cut at from). */
int fu_json_escape(mct_buf *b, size_t from);

/* The parameter list of a JVM method descriptor as Java would write it,
 * simple class names, into buf: "(Ljava/lang/String;[IJ)V" -> "(String,
 * int[], long)". A descriptor it cannot read is copied as it is. */
void fu_java_params(char *buf, size_t size, const char *desc);

#endif
