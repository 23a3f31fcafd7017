/* crec.h — compact calls (PROTOCOL.md "Compact calls"): a session whose
 * trace request says "compact":true gets each call as a binary record in
 * place of a JSON `call` message, its methods named by number, and each
 * method's names once, in a definition frame sent before the first record
 * that uses it. The agent encodes (crec_buf, crec_frame_*, crec_put_*, and
 * crec_defs to know what it defined already); the client decodes and checks
 * every byte (crec_decode, into a crec_tab of the definitions and a
 * crec_call) and renders a call as the JSON line of SPEC §3 in one pass
 * (crec_json_line), each method's names escaped once, or as the `call`
 * object (crec_call_json) for the formats and gates that read one. */
#ifndef MCT_CREC_H
#define MCT_CREC_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "err.h"

/* The first payload byte of a compact frame (a JSON payload begins with '{'). */
#define CREC_DEF 0x01
#define CREC_CALL 0x02
/* Call flags. */
#define CREC_F_WARMUP 0x01u    /* "warmup":true: the call began before its methods were compiled again */
#define CREC_F_KNOWN CREC_F_WARMUP
/* Node flags. */
#define CREC_N_TRUNCATED 0x01u
/* Method numbers are below this. */
#define CREC_MAX_ID (1u << 24)
/* A node on the wire: method (u32), flags (u8), children (u32), calls,
 * total_ns, self_ns, min_ns, max_ns, throws (u64). */
#define CREC_NODE_BYTES (4 + 1 + 4 + 6 * 8)

/* ---- the agent's side: encoding ------------------------------------------ */

/* Frames one after the other, ready to be written. */
typedef struct crec_buf {
    unsigned char *p;
    size_t len, cap;
    int failed;                /* out of memory: the content is incomplete */
} crec_buf;

/* Starts a frame of type (CREC_DEF, CREC_CALL) at the end of b; its
 * offset, for crec_frame_end. */
size_t crec_frame_begin(crec_buf *b, unsigned type);
/* Finishes the frame begun at start (its length into its header); 0, or -1
 * when b failed (out of memory) or the frame is over the reply cap: the
 * frame is then removed and b->failed cleared. */
int crec_frame_end(crec_buf *b, size_t start);
/* Append v, big-endian (out of memory: b->failed, then nothing is added). */
void crec_put_u8(crec_buf *b, unsigned v);
void crec_put_u32(crec_buf *b, uint32_t v);
void crec_put_u64(crec_buf *b, uint64_t v);
/* A string: its length (u32), then its n bytes (UTF-8, no NUL). */
void crec_put_str(crec_buf *b, const char *s, size_t n);
/* Room for n bytes at the end of b, which now counts them: where to write
 * them (crec_be32, crec_be64), or NULL when out of memory (b->failed). */
unsigned char *crec_reserve(crec_buf *b, size_t n);

static inline unsigned char *crec_be32(unsigned char *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    __builtin_memcpy(p, &v, 4);
    return p + 4;
}

static inline unsigned char *crec_be64(unsigned char *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    __builtin_memcpy(p, &v, 8);
    return p + 8;
}

/* Empties b, keeping its memory. */
void crec_buf_reset(crec_buf *b);
/* Frees b's memory; b is empty again. */
void crec_buf_free(crec_buf *b);

/* The method numbers defined on a connection so far. */
typedef struct crec_defs {
    unsigned char *bits;
    size_t n;                  /* bytes of bits */
} crec_defs;

/* 1 if id was defined. */
int crec_defs_has(const crec_defs *d, uint32_t id);
/* Notes id as defined; 0, or -1 when out of memory or id >= CREC_MAX_ID. */
int crec_defs_add(crec_defs *d, uint32_t id);
/* Frees d's memory; nothing is defined then. */
void crec_defs_free(crec_defs *d);

/* ---- the client's side: decoding and rendering ----------------------------- */

/* One defined method: its names, and the JSON text of its three keys
 * ("class":"..","method":"..","desc":"..") escaped once. */
struct crec_method {
    char *cls, *name, *desc;
    char *keys;
    size_t keys_len;
};

/* The definitions received on a connection; the caller zero-initialises it. */
typedef struct crec_tab {
    struct crec_method **m;    /* by number; NULL: not defined */
    size_t n;
} crec_tab;

/* Frees the definitions (and the names in them); t is empty again. */
void crec_tab_free(crec_tab *t);

/* A node of a decoded call, in pre-order (a node, then its children's
 * subtrees in order). */
struct crec_node {
    uint32_t method;           /* defined in the tab */
    uint32_t n_children;
    unsigned flags;            /* CREC_N_* */
    uint64_t calls, total_ns, self_ns, min_ns, max_ns, throws;
};

/* A decoded call; zero-initialise, reuse across calls, crec_call_free. */
typedef struct crec_call {
    unsigned flags;            /* CREC_F_* */
    uint64_t seq, start_ns;
    int64_t thread_id;         /* >= 0 */
    char *thread_name;         /* UTF-8 */
    char *exception;           /* the root's exception class, or NULL */
    struct crec_node *nodes;   /* n_nodes >= 1, nodes[0] the root */
    size_t n_nodes, cap_nodes;
    size_t cap_name, cap_exc;  /* (the strings' buffers) */
} crec_call;

/* Frees what c holds; c is empty again. */
void crec_call_free(crec_call *c);

/* Decodes the compact payload p of n bytes: a definition goes into t, a
 * call into c (valid until the next call into c). Returns CREC_DEF or
 * CREC_CALL, or -1 with e set (MCT_E_PROTO, MCT_E_NOMEM) naming what is
 * wrong: an unknown type, a length that does not fit, a method number
 * never defined or defined twice, a string not UTF-8, a number out of
 * range, a tree that does not close, bytes after the record. The names
 * in t and c are theirs (freed by crec_tab_free, crec_call_free). */
int crec_decode(crec_tab *t, crec_call *c, const unsigned char *p, size_t n, mct_err *e);

/* A string builder for crec_json_line. */
typedef struct crec_text {
    char *p;
    size_t len, cap;
} crec_text;

/* Frees x's text; x is empty again. */
void crec_text_free(crec_text *x);

/* Appends call c (decoded with t) as SPEC §3's JSON object and a newline,
 * byte for byte what jansson's compact dump of crec_call_json gives with
 * DEL and the C1 controls escaped (client/fmtutil.h fu_json_dump); 0, or -1
 * when out of memory. */
int crec_json_line(crec_text *x, const crec_tab *t, const crec_call *c);

/* Call c as the `call` object (a new reference), or NULL when out of memory. */
json_t *crec_call_json(const crec_tab *t, const crec_call *c);

/* Appends s as a JSON string (quotes included), escaped as crec_json_line
 * says; 0 or -1 when out of memory. */
int crec_text_jstr(crec_text *x, const char *s);

#endif
