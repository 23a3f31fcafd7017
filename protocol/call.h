/* call.h — a traced call: the one typed model of SPEC §3's `call` and its
 * encodings, in one place. The agent's tree builder fills a model (its
 * nodes in pre-order, methods by number in a call_tab), and everything that
 * reads or writes a call goes through this module:
 *
 *   - the binary record of PROTOCOL.md "Compact calls" (call_encode, and
 *     call_decode which checks every byte): a session whose trace request
 *     says "compact":true gets each method's names once, in a definition
 *     frame before the first record that uses it;
 *   - the one JSON writer (call_json_line, and call_json_frame for the
 *     protocol's `call` message), byte for byte what jansson's compact dump
 *     gives with DEL and the C1 controls escaped (client/fmtutil.h
 *     fu_json_dump);
 *   - the one JSON reader (call_from_json), for calls that come as JSON
 *     (the protocol's `call` message, the wrap form's files, `diff`'s
 *     inputs), which checks everything it reads.
 *
 * Every model that a reader accepts or the producer builds satisfies
 * call_check, and both writers take any such model: what one encoding
 * holds, the other holds too. A field of a node is the model's, its two
 * encodings', its producer's (agent/runtime/tree.c) and the consumers' that
 * show it (the summary, the output formats). */
#ifndef MCT_CALL_H
#define MCT_CALL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "buf.h"
#include "err.h"
#include "kit.h"
#include "proto.h"

/* The first payload byte of a compact frame (a JSON payload begins with '{'). */
#define CALL_DEF 0x01
#define CALL_REC 0x02
/* Call flags. */
#define CALL_F_WARMUP 0x01u    /* "warmup":true: the call began before its methods were compiled again */
#define CALL_F_CPU 0x02u       /* every node holds cpu_ns (the session asked for --cpu) */
#define CALL_F_ALLOC 0x04u     /* every node holds alloc_bytes (the session asked for --alloc) */
#define CALL_F_ASYNC 0x08u     /* some nodes are CALL_N_ASYNC (the session asked for --follow-async) */
#define CALL_F_ARGS 0x10u      /* the root holds the entry method's arguments (--args) */
#define CALL_F_PARENT 0x20u    /* the call holds its trace parent (--trace-context) */
#define CALL_F_KNOWN (CALL_F_WARMUP | CALL_F_CPU | CALL_F_ALLOC | CALL_F_ASYNC | CALL_F_ARGS | CALL_F_PARENT)
/* Node flags. */
#define CALL_N_TRUNCATED 0x01u
#define CALL_N_ASYNC 0x02u     /* "async":true: a task handed off to another thread (handoff_ns),
                                  run there (its thread, queued_ns) */
#define CALL_N_PENDING 0x04u   /* "pending":true, with CALL_N_ASYNC: the task had not ended
                                  when the call was written (no thread, all counts 0) */
#define CALL_N_REJECTED 0x08u  /* "rejected":true, with CALL_N_ASYNC: the executor refused the
                                  task (its hand-off threw; no thread, all counts 0) */
#define CALL_N_CANCELLED 0x10u /* "cancelled":true, with CALL_N_ASYNC: the task will never run: its
                                  future was done without it (cancelled, completed by another) */
#define CALL_N_KNOWN (CALL_N_TRUNCATED | CALL_N_ASYNC | CALL_N_PENDING | CALL_N_REJECTED | CALL_N_CANCELLED)
/* An async node whose task never ran here: pending, rejected or cancelled
 * (one of them). */
#define CALL_N_NOT_RUN (CALL_N_PENDING | CALL_N_REJECTED | CALL_N_CANCELLED)
/* Method numbers are below this. */
#define CALL_MAX_ID (1u << 24)
/* Most levels of nodes in a call, the root included. */
#define CALL_MAX_DEPTH PROTO_MAX_DEPTH
/* Longest name (class, method, descriptor, exception, thread), in bytes:
 * a class file's longest UTF-8 constant. */
#define CALL_STR_MAX 65535
/* A node on the wire: method (u32), flags (u8), children (u32), calls,
 * total_ns, self_ns, min_ns, max_ns, throws (u64). */
#define CALL_NODE_BYTES (4 + 1 + 4 + 6 * 8)
/* With CALL_F_CPU, each node on the wire is followed by cpu_ns (u64);
 * with CALL_F_ALLOC, then by alloc_bytes (u64). With CALL_F_ASYNC the
 * nodes are followed by each async node's handoff_ns (u64) and, when
 * it ran (not CALL_N_NOT_RUN), its queued_ns (u64) and thread name
 * (string), in the nodes' order. */
#define CALL_NODE_CPU_BYTES 8
#define CALL_NODE_ALLOC_BYTES 8

/* ---- the model ---------------------------------------------------------------- */

/* An argument's type (the agent's probes record the same numbers). */
enum call_arg_type {
    CALL_ARG_BOOLEAN = 0, CALL_ARG_BYTE, CALL_ARG_CHAR, CALL_ARG_SHORT, CALL_ARG_INT, CALL_ARG_LONG,
    CALL_ARG_FLOAT, CALL_ARG_DOUBLE, CALL_ARG_NULL, CALL_ARG_STRING, CALL_ARG_ENUM, CALL_ARG_OBJECT,
    CALL_ARG_TYPES
};

/* Most arguments a method has (JVMS 4.3.3: 255 slots). */
#define CALL_MAX_ARGS 255

/* An argument of the entry method. */
struct call_arg {
    unsigned type;             /* enum call_arg_type */
    uint64_t bits;             /* a primitive's bits, zero-extended (a float's or double's
                                  canonical ones: one NaN); an object's identity hash
                                  (32 bits); else 0 */
    uint64_t length;           /* a String's length in UTF-16 units (more than text
                                  holds: it was cut); else 0 */
    char *text;                /* a String's or enum constant's characters kept, an
                                  object's class name (UTF-8, owned); else NULL */
};

/* A W3C trace context (the traceparent header's fields): the span active
 * on the entry thread when the call began, which the call is a child of. */
struct call_parent {
    uint8_t trace_id[16];      /* not all zero */
    uint8_t span_id[8];        /* not all zero */
    uint8_t flags;             /* trace-flags (bit 0: sampled) */
};

/* A traceparent's length: "00-" 32 hex "-" 16 hex "-" 2 hex. */
#define CALL_TRACEPARENT_LEN 55

/* One method: its names (UTF-8, 1 to CALL_STR_MAX bytes, no NUL), and the
 * JSON text of its three keys ("class":"..","method":"..","desc":"..")
 * escaped once. */
struct call_method {
    char *cls, *name, *desc;
    char *keys;
    size_t keys_len;
};

/* Methods by number: the definitions received on a connection, the
 * agent's methods, or those a JSON reader met. Zero-initialise;
 * call_tab_free. */
typedef struct call_tab {
    struct call_method **m;    /* by number; NULL: not defined */
    size_t n;
    uint32_t next;             /* call_tab_intern's next number */
    kit_table names;           /* number + 1 by the names' hash (call_tab_intern) */
    uint64_t id;               /* this filling's identity, unique in the process (0: empty):
                                  what a number means while it lasts, for caches by number */
} call_tab;

/* Frees the definitions (and the names in them); t is empty again. */
void call_tab_free(call_tab *t);

/* Method id of t, or NULL when it is not defined. */
static inline const struct call_method *call_tab_get(const call_tab *t, uint32_t id)
{
    return id < t->n ? t->m[id] : NULL;
}

/* Defines method id (< CALL_MAX_ID, not defined yet) with copies of its
 * names (UTF-8, 1 to CALL_STR_MAX bytes); 0, or -1 with e set
 * (MCT_E_PROTO naming what is wrong, MCT_E_NOMEM). */
int call_tab_define(call_tab *t, uint32_t id, const char *cls, const char *name, const char *desc, mct_err *e);

/* The number of the method (cls, name, desc) in t, defined with the next
 * free number when t lacks it; 0, or -1 with e set as call_tab_define.
 * For tables filled only this way (a JSON reader's). */
int call_tab_intern(call_tab *t, const char *cls, const char *name, const char *desc, uint32_t *id,
                    mct_err *e);

/* A node, in pre-order (a node, then its children's subtrees in order). */
struct call_node {
    uint32_t method;           /* defined in the call's tab */
    uint32_t n_children;
    unsigned flags;            /* CALL_N_* */
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
    uint64_t cpu_ns;           /* with CALL_F_CPU: the thread's CPU time in the node's
                                  calls, at most total_ns (its wait is the rest); else 0 */
    uint64_t alloc_bytes;      /* with CALL_F_ALLOC: the bytes the thread allocated in
                                  the node's calls; else 0 */
    uint64_t handoff_ns;       /* CALL_N_ASYNC: from the call's start (start_ns) to the
                                  hand-off, on the handing thread's clock; else 0 */
    uint64_t queued_ns;        /* CALL_N_ASYNC: from the hand-off to the task's start; else 0 */
    uint32_t thread;           /* CALL_N_ASYNC (not CALL_N_NOT_RUN): its thread's name,
                                  threads[thread] */
};

/* A call; zero-initialise, reuse across calls, call_free. */
typedef struct mct_call {
    unsigned flags;            /* CALL_F_* */
    uint64_t seq, start_ns;
    int64_t thread_id;         /* >= 0 */
    char *thread_name;         /* UTF-8, never NULL once filled */
    char *exception;           /* the root's exception class, or NULL */
    struct call_arg *args;     /* with CALL_F_ARGS: the entry method's arguments (some
                                  may be missing at the end: the ring was full) */
    size_t n_args, cap_args;
    struct call_node *nodes;   /* n_nodes >= 1, nodes[0] the root */
    size_t n_nodes, cap_nodes;
    size_t cap_name, cap_exc;  /* (the strings' buffers) */
    char **threads;            /* the async nodes' thread names (UTF-8), n_threads of them */
    size_t n_threads, cap_threads;
    struct call_parent parent; /* with CALL_F_PARENT: the span it is a child of; else zero */
} mct_call;

/* Frees what c holds; c is empty again. */
void call_free(mct_call *c);

/* Room for n nodes in c (which now counts them, their content
 * unspecified), or NULL when out of memory. */
struct call_node *call_nodes(mct_call *c, size_t n);

/* Room for n arguments in c (which now counts them, at c->args), each
 * empty (type CALL_ARG_NULL); 0, or -1 when out of memory. */
int call_args(mct_call *c, size_t n);

/* Copies the n bytes at s as a's text (NUL added); 0, or -1 when out of
 * memory. */
int call_arg_text(struct call_arg *a, const char *s, size_t n);

/* Whether String argument a was cut (its text holds fewer UTF-16 units
 * than its length). */
int call_arg_cut(const struct call_arg *a);

/* Copies the thread's name (NULL: "") and the exception (NULL: none) into
 * c, which holds no async node's thread name then; 0, or -1 when out of
 * memory. */
int call_set_names(mct_call *c, const char *thread_name, const char *exception);

/* Adds a copy of name (an async node's thread) to c's threads; its index
 * into *at; 0, or -1 when out of memory. */
int call_add_thread(mct_call *c, const char *name, uint32_t *at);

/* Checks that c (methods in t) is a call: seq >= 1, every number at most
 * INT64_MAX, strings UTF-8 of at most CALL_STR_MAX bytes (the exception
 * not empty), known flags, every node's method defined, the nodes one tree
 * at most CALL_MAX_DEPTH levels deep, arguments only with CALL_F_ARGS, at
 * most CALL_MAX_ARGS, each as struct call_arg says. 0, or -1 with e set (MCT_E_PROTO). */
int call_check(const call_tab *t, const mct_call *c, mct_err *e);

/* The index after node i's subtree in c (which passed call_check). */
size_t call_subtree_end(const mct_call *c, size_t i);

/* Reads the W3C traceparent of n bytes at s (version 00: "00-" 32
 * lowercase hex "-" 16 lowercase hex "-" 2 lowercase hex; a later version:
 * those 55 bytes, then nothing or '-' and more; never version ff; neither
 * id all zeros) into p; 0, or -1 when s is not one (p then unspecified). */
int call_parent_read(const char *s, size_t n, struct call_parent *p);

/* Writes p as a version-00 traceparent into out (CALL_TRACEPARENT_LEN
 * bytes and a NUL). */
void call_parent_write(const struct call_parent *p, char out[CALL_TRACEPARENT_LEN + 1]);

/* Whether the call is marked "warmup":true. */
static inline int call_warmup(const mct_call *c)
{
    return (c->flags & CALL_F_WARMUP) != 0;
}

/* ---- the compact encoding ------------------------------------------------------- */

/* The method numbers defined on a connection so far. */
typedef struct call_defs {
    unsigned char *bits;
    size_t n;                  /* bytes of bits */
} call_defs;

/* Frees d's memory; nothing is defined then. */
void call_defs_free(call_defs *d);

/* Starts a frame at the end of b: compact of type (CALL_DEF, CALL_REC), or
 * JSON when type is 0 (no type byte); its offset, for call_frame_end. */
size_t call_frame_begin(mct_buf *b, unsigned type);
/* Finishes the frame begun at start (its length into its header); 0, or -1
 * when b failed (out of memory) or the frame is over the reply cap: the
 * frame is then removed and b usable again. */
int call_frame_end(mct_buf *b, size_t start);

/* Appends c (methods in t; it passed call_check or was built to) to b as
 * compact frames: a definition of each of its methods not in defs yet
 * (then added to defs), then its record. 0, or -1 when out of memory or a
 * frame is over the reply cap: b then holds what was whole before. */
int call_encode(mct_buf *b, const call_tab *t, call_defs *defs, const mct_call *c);

/* Decodes the compact payload p of n bytes: a definition goes into t, a
 * call into c (valid until the next call into c). Returns CALL_DEF or
 * CALL_REC, or -1 with e set (MCT_E_PROTO, MCT_E_NOMEM) naming what is
 * wrong: an unknown type, a length that does not fit, a method number
 * never defined or defined twice, what call_check refuses, bytes after
 * the record. */
int call_decode(call_tab *t, mct_call *c, const unsigned char *p, size_t n, mct_err *e);

/* ---- JSON --------------------------------------------------------------------- */

/* Appends c (methods in t) as SPEC §3's JSON object and a newline (the
 * line ends with "}\n"); 0, or -1 when out of memory (b failed). */
int call_json_line(mct_buf *b, const call_tab *t, const mct_call *c);

/* Appends c as the protocol's `call` message, one JSON frame; 0, or -1
 * when out of memory or over the reply cap (b then as it was). */
int call_json_frame(mct_buf *b, const call_tab *t, const mct_call *c);

/* Appends s as a JSON string (quotes included), escaped as call_json_line
 * says (b failed when out of memory). */
void call_json_str(mct_buf *b, const char *s);

/* Reads the `call` object j (untrusted) into c, its methods into t
 * (call_tab_intern): every field typed and in range, as call_check says,
 * "exception" on the root only, the thread's name optional (""); keys it
 * does not know are allowed (SPEC
 * §3: keys may be added). 0, or -1 with e set (MCT_E_PROTO naming the key,
 * e.g. "call: root.children[2].calls: ...", or MCT_E_NOMEM). */
int call_from_json(call_tab *t, mct_call *c, const json_t *j, mct_err *e);

/* Whether j is a `call` object call_from_json accepts; 0 or -1 with e set
 * (the protocol's check of a `call` message). */
int call_json_check(const json_t *j, mct_err *e);

/* call_json_check for a call inside document what (e.g. "summary") at path
 * at (e.g. "slowest[2]"): its messages name both, as in "summary:
 * slowest[2].root.calls: ...". */
int call_json_check_at(const json_t *j, const char *what, const char *at, mct_err *e);

/* c's arguments as the array call_json_line writes (a new reference), or
 * NULL when c has none (no CALL_F_ARGS) or out of memory. */
json_t *call_args_json(const mct_call *c);

/* c as a `call` object (a new reference; for documents that embed calls,
 * a summary's slowest), or NULL when out of memory. */
json_t *call_json(const call_tab *t, const mct_call *c);

#endif
