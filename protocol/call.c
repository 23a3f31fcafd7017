/* call.c — see call.h. Numbers on the wire are big-endian, as the frame
 * header's. */
#include "call.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A call's fixed part after its type byte: flags, seq, thread id, start. */
#define CALL_FIXED (1 + 8 + 8 + 8)

/* The bytes of one node on the wire in a call of these flags. */
static size_t node_bytes(unsigned flags)
{
    return CALL_NODE_BYTES + (flags & CALL_F_CPU ? CALL_NODE_CPU_BYTES : 0) +
           (flags & CALL_F_ALLOC ? CALL_NODE_ALLOC_BYTES : 0);
}

/* ---- the model ---------------------------------------------------------------- */

static void method_free(struct call_method *m)
{
    if (m == NULL)
        return;
    free(m->cls);
    free(m->name);
    free(m->desc);
    free(m->keys);
    free(m);
}

void call_tab_free(call_tab *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        method_free(t->m[i]);
    free(t->m);
    kit_table_free(&t->names);
    *t = (call_tab){0};
}

/* A name of a method: 1 to CALL_STR_MAX bytes of UTF-8. */
static int name_ok(const char *s, const char *what, mct_err *e)
{
    size_t n = strlen(s);

    if (n == 0)
        return mct_err_set(e, MCT_E_PROTO, "%s: empty", what);
    if (n > CALL_STR_MAX)
        return mct_err_set(e, MCT_E_PROTO, "%s: %zu bytes, over %d", what, n, CALL_STR_MAX);
    if (!proto_utf8_valid(s, n))
        return mct_err_set(e, MCT_E_PROTO, "%s: not UTF-8, or holds a NUL byte", what);
    return 0;
}

static uint64_t names_hash(const char *cls, const char *name, const char *desc)
{
    return kit_hash_str(desc, kit_hash_str(name, kit_hash_str(cls, 0)));
}

/* The identities of tabs' fillings (call_tab's id), from 1. */
static uint64_t tab_ids;

int call_tab_define(call_tab *t, uint32_t id, const char *cls, const char *name, const char *desc, mct_err *e)
{
    struct call_method *m;
    mct_buf k;

    if (id >= CALL_MAX_ID)
        return mct_err_set(e, MCT_E_PROTO, "method number %u is over %u", id, CALL_MAX_ID - 1);
    if (call_tab_get(t, id) != NULL)
        return mct_err_set(e, MCT_E_PROTO, "method %u is defined twice", id);
    if (name_ok(cls, "the method's class", e) < 0 || name_ok(name, "the method's name", e) < 0 ||
        name_ok(desc, "the method's descriptor", e) < 0)
        return -1;
    if (id >= t->n) {
        size_t n = t->n ? t->n : 64;
        struct call_method **p;

        while (id >= n)
            n *= 2;
        p = realloc(t->m, n * sizeof *p);
        if (p == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
        memset(p + t->n, 0, (n - t->n) * sizeof *p);
        t->m = p;
        t->n = n;
    }
    m = calloc(1, sizeof *m);
    if (m == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    m->cls = strdup(cls);
    m->name = strdup(name);
    m->desc = strdup(desc);
    /* The three keys as JSON text, once. */
    buf_init(&k);
    buf_str(&k, "\"class\":");
    call_json_str(&k, cls);
    buf_str(&k, ",\"method\":");
    call_json_str(&k, name);
    buf_str(&k, ",\"desc\":");
    call_json_str(&k, desc);
    buf_ch(&k, '\0');
    if (m->cls == NULL || m->name == NULL || m->desc == NULL || buf_failed(&k)) {
        buf_free(&k);
        method_free(m);
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    }
    m->keys = (char *)buf_steal(&k, &m->keys_len);
    m->keys_len--; /* the NUL */
    t->m[id] = m;
    if (t->id == 0)
        t->id = __atomic_add_fetch(&tab_ids, 1, __ATOMIC_RELAXED);
    return 0;
}

int call_tab_intern(call_tab *t, const char *cls, const char *name, const char *desc, uint32_t *id,
                    mct_err *e)
{
    uint64_t h = names_hash(cls, name, desc);
    kit_cursor cur;
    uintptr_t v;

    for (v = kit_table_first(&t->names, h, &cur); v != 0; v = kit_table_next(&t->names, &cur)) {
        const struct call_method *m = t->m[v - 1];

        if (strcmp(m->cls, cls) == 0 && strcmp(m->name, name) == 0 && strcmp(m->desc, desc) == 0) {
            *id = (uint32_t)(v - 1);
            return 0;
        }
    }
    if (kit_table_reserve(&t->names, t->names.n + 1) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    if (call_tab_define(t, t->next, cls, name, desc, e) < 0)
        return -1;
    kit_table_add(&t->names, h, (uintptr_t)t->next + 1);
    *id = t->next++;
    return 0;
}

/* c holds no async node's thread name. */
static void threads_clear(mct_call *c)
{
    for (size_t i = 0; i < c->n_threads; i++)
        free(c->threads[i]);
    c->n_threads = 0;
}

int call_add_thread(mct_call *c, const char *name, uint32_t *at)
{
    char *copy;

    if (buf_grow(&c->threads, &c->cap_threads, c->n_threads, sizeof *c->threads, 8) < 0)
        return -1;
    if ((copy = strdup(name)) == NULL)
        return -1;
    *at = (uint32_t)c->n_threads;
    c->threads[c->n_threads++] = copy;
    return 0;
}

/* ---- the trace parent ---------------------------------------------------------- */

static int hex_digit(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* n bytes from the 2n lowercase hex digits at s; whether they were. */
static int hex_bytes(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return 0;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}

static int zero_bytes(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return 0;
    return 1;
}

int call_parent_read(const char *s, size_t n, struct call_parent *p)
{
    uint8_t version;

    if (n < CALL_TRACEPARENT_LEN || !hex_bytes(s, &version, 1) || version == 0xff || s[2] != '-' ||
        s[35] != '-' || s[52] != '-')
        return -1;
    /* Version 00 is exactly 55 bytes; a later one may append fields. */
    if (n > CALL_TRACEPARENT_LEN && (version == 0 || s[CALL_TRACEPARENT_LEN] != '-'))
        return -1;
    if (!hex_bytes(s + 3, p->trace_id, 16) || !hex_bytes(s + 36, p->span_id, 8) || !hex_bytes(s + 53, &p->flags, 1))
        return -1;
    return zero_bytes(p->trace_id, 16) || zero_bytes(p->span_id, 8) ? -1 : 0;
}

static char *hex_put(char *w, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        *w++ = digits[p[i] >> 4];
        *w++ = digits[p[i] & 15];
    }
    return w;
}

void call_parent_write(const struct call_parent *p, char out[CALL_TRACEPARENT_LEN + 1])
{
    char *w = out;

    *w++ = '0';
    *w++ = '0';
    *w++ = '-';
    w = hex_put(w, p->trace_id, 16);
    *w++ = '-';
    w = hex_put(w, p->span_id, 8);
    *w++ = '-';
    w = hex_put(w, &p->flags, 1);
    *w = '\0';
}

/* The arguments' texts go; the array stays. */
static void args_clear(mct_call *c)
{
    size_t i;

    for (i = 0; i < c->n_args; i++) {
        free(c->args[i].text);
        c->args[i].text = NULL;
    }
    c->n_args = 0;
}

int call_args(mct_call *c, size_t n)
{
    args_clear(c);
    if (buf_room(&c->args, &c->cap_args, n, sizeof *c->args, 1) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        c->args[i] = (struct call_arg){.type = CALL_ARG_NULL};
    c->n_args = n;
    return 0;
}

int call_arg_text(struct call_arg *a, const char *s, size_t n)
{
    char *p = malloc(n + 1);

    if (p == NULL)
        return -1;
    memcpy(p, s, n);
    p[n] = '\0';
    free(a->text);
    a->text = p;
    return 0;
}

int call_arg_cut(const struct call_arg *a)
{
    const unsigned char *p = (const unsigned char *)a->text;
    uint64_t units = 0;

    if (a->type != CALL_ARG_STRING || p == NULL)
        return 0;
    for (; *p != '\0'; p++)
        units += (*p & 0xc0) != 0x80 ? 1 + (*p >= 0xf0) : 0;
    return units < a->length;
}

void call_free(mct_call *c)
{
    threads_clear(c);
    free(c->threads);
    args_clear(c);
    free(c->args);
    free(c->thread_name);
    free(c->exception);
    free(c->nodes);
    *c = (mct_call){0};
}

struct call_node *call_nodes(mct_call *c, size_t n)
{
    if (buf_room(&c->nodes, &c->cap_nodes, n, sizeof *c->nodes, 16) < 0)
        return NULL;
    c->n_nodes = n;
    return c->nodes;
}

/* Copies s (n bytes) into *buf (grown, NUL-terminated; *cap its size). */
static int copy_str(char **buf, size_t *cap, const char *s, size_t n)
{
    if (*cap < n + 1) {
        char *p = realloc(*buf, n + 1);

        if (p == NULL)
            return -1;
        *buf = p;
        *cap = n + 1;
    }
    memcpy(*buf, s, n);
    (*buf)[n] = '\0';
    return 0;
}

/* Copies exception (NULL: none) into c; 0 or -1 when out of memory. */
static int set_exception(mct_call *c, const char *exception)
{
    if (exception == NULL) {
        free(c->exception);
        c->exception = NULL;
        c->cap_exc = 0;
        return 0;
    }
    return copy_str(&c->exception, &c->cap_exc, exception, strlen(exception));
}

int call_set_names(mct_call *c, const char *thread_name, const char *exception)
{
    threads_clear(c);
    if (thread_name == NULL)
        thread_name = "";
    if (copy_str(&c->thread_name, &c->cap_name, thread_name, strlen(thread_name)) < 0)
        return -1;
    return set_exception(c, exception);
}

/* A number that must fit a JSON integer >= 0. */
static int num_ok(uint64_t v, const char *what, mct_err *e)
{
    if (v > (uint64_t)INT64_MAX)
        return mct_err_set(e, MCT_E_PROTO, "%s: %llu is over %lld", what, (unsigned long long)v,
                           (long long)INT64_MAX);
    return 0;
}

static int node_ok(const call_tab *t, const mct_call *c, const struct call_node *nd, size_t i, mct_err *e)
{
    if (call_tab_get(t, nd->method) == NULL)
        return mct_err_set(e, MCT_E_PROTO, "node %zu names method %u, which was never defined", i, nd->method);
    if (nd->flags & ~CALL_N_KNOWN)
        return mct_err_set(e, MCT_E_PROTO, "node %zu has unknown flags 0x%x", i, nd->flags);
    if ((nd->flags & CALL_N_ASYNC) && !(c->flags & CALL_F_ASYNC))
        return mct_err_set(e, MCT_E_PROTO, "node %zu is async in a call not flagged so", i);
    if ((nd->flags & CALL_N_NOT_RUN) &&
        (((nd->flags & CALL_N_NOT_RUN) & ((nd->flags & CALL_N_NOT_RUN) - 1)) != 0 || !(nd->flags & CALL_N_ASYNC) ||
         nd->calls != 0 || nd->n_children != 0))
        return mct_err_set(e, MCT_E_PROTO,
                           "node %zu is pending, rejected or cancelled but not an async node without calls", i);
    if ((nd->flags & (CALL_N_ASYNC | CALL_N_NOT_RUN)) == CALL_N_ASYNC &&
        (nd->thread >= c->n_threads || strlen(c->threads[nd->thread]) > CALL_STR_MAX ||
         !proto_utf8_valid(c->threads[nd->thread], strlen(c->threads[nd->thread]))))
        return mct_err_set(e, MCT_E_PROTO, "node %zu: an async node without its thread's name (UTF-8)", i);
    if (!(nd->flags & CALL_N_ASYNC) && nd->handoff_ns != 0)
        return mct_err_set(e, MCT_E_PROTO, "node %zu: a hand-off time on a node that is not async", i);
    /* Every figure at most INT64_MAX: one test of their top bits, then,
     * only for a node that fails it, the one that says which. */
    if (((nd->queued_ns | nd->handoff_ns | nd->calls | nd->total_ns | nd->self_ns | nd->min_ns | nd->max_ns |
          nd->throws | nd->alloc_bytes) >> 63) != 0 &&
        (num_ok(nd->queued_ns, "queued_ns", e) < 0 || num_ok(nd->handoff_ns, "handoff_ns", e) < 0 ||
         num_ok(nd->calls, "calls", e) < 0 || num_ok(nd->total_ns, "total_ns", e) < 0 ||
         num_ok(nd->self_ns, "self_ns", e) < 0 || num_ok(nd->min_ns, "min_ns", e) < 0 ||
         num_ok(nd->max_ns, "max_ns", e) < 0 || num_ok(nd->throws, "throws", e) < 0 ||
         num_ok(nd->alloc_bytes, "alloc_bytes", e) < 0))
        return -1;
    if (nd->cpu_ns > nd->total_ns)
        return mct_err_set(e, MCT_E_PROTO, "node %zu: cpu_ns %llu is over its total_ns %llu", i,
                           (unsigned long long)nd->cpu_ns, (unsigned long long)nd->total_ns);
    return 0;
}

/* The names of the argument types, as JSON writes them. */
static const char *const arg_type_names[CALL_ARG_TYPES] = {
    "boolean", "byte", "char", "short", "int", "long", "float", "double", "null", "String", "enum", "object",
};

/* Whether bits are a float's (or, double: a double's) canonical bits: one NaN. */
static int canonical(uint64_t bits, int dbl)
{
    if (dbl) {
        double d;

        memcpy(&d, &bits, 8);
        return !isnan(d) || bits == UINT64_C(0x7ff8000000000000);
    } else {
        float f;
        uint32_t b = (uint32_t)bits;

        memcpy(&f, &b, 4);
        return !isnan(f) || b == 0x7fc00000u;
    }
}

static int arg_ok(const struct call_arg *a, size_t i, mct_err *e)
{
    /* The largest bits of each primitive type, zero-extended. */
    static const uint64_t top[CALL_ARG_NULL] = {1, 0xff, 0xffff, 0xffff, 0xffffffffu, UINT64_MAX, 0xffffffffu,
                                                UINT64_MAX};

    if (a->type >= CALL_ARG_TYPES)
        return mct_err_set(e, MCT_E_PROTO, "argument %zu: unknown type %u", i, a->type);
    if (a->type < CALL_ARG_NULL) {
        if (a->bits > top[a->type])
            return mct_err_set(e, MCT_E_PROTO, "argument %zu: bits 0x%llx do not fit a %s", i,
                               (unsigned long long)a->bits, arg_type_names[a->type]);
        if ((a->type == CALL_ARG_FLOAT || a->type == CALL_ARG_DOUBLE) &&
            !canonical(a->bits, a->type == CALL_ARG_DOUBLE))
            return mct_err_set(e, MCT_E_PROTO, "argument %zu: a NaN other than the canonical one", i);
    } else if (a->type == CALL_ARG_OBJECT && a->bits > 0xffffffffu) {
        return mct_err_set(e, MCT_E_PROTO, "argument %zu: identity hash 0x%llx over 32 bits", i,
                           (unsigned long long)a->bits);
    } else if (a->type != CALL_ARG_OBJECT && a->bits != 0) {
        return mct_err_set(e, MCT_E_PROTO, "argument %zu: a %s has no bits", i, arg_type_names[a->type]);
    }
    if (a->type == CALL_ARG_STRING ? a->length > INT32_MAX : a->length != 0)
        return mct_err_set(e, MCT_E_PROTO, "argument %zu: length %llu %s", i, (unsigned long long)a->length,
                           a->type == CALL_ARG_STRING ? "is over a String's 2147483647" : "belongs to no String");
    if (a->type < CALL_ARG_STRING ? a->text != NULL : a->text == NULL)
        return mct_err_set(e, MCT_E_PROTO, "argument %zu: a %s %s text", i, arg_type_names[a->type],
                           a->text != NULL ? "has no" : "needs its");
    if (a->text != NULL) {
        char what[48];

        snprintf(what, sizeof what, "argument %zu", i);
        if (a->type == CALL_ARG_OBJECT)
            return name_ok(a->text, what, e);
        if (strlen(a->text) > CALL_STR_MAX || !proto_utf8_valid(a->text, strlen(a->text)))
            return mct_err_set(e, MCT_E_PROTO, "%s: not UTF-8 of at most %d bytes", what, CALL_STR_MAX);
    }
    return 0;
}

size_t call_subtree_end(const mct_call *c, size_t i)
{
    size_t open = 1;

    /* In size_t: a leaf's 0 - 1 in uint32_t would add 2^32 - 1. */
    for (; open > 0 && i < c->n_nodes; i++)
        open = open + c->nodes[i].n_children - 1;
    return i;
}

int call_check(const call_tab *t, const mct_call *c, mct_err *e)
{
    uint32_t left[CALL_MAX_DEPTH]; /* children still to come, per open node */
    int depth = 0;
    size_t i;

    if (c->flags & ~CALL_F_KNOWN)
        return mct_err_set(e, MCT_E_PROTO, "unknown call flags 0x%x", c->flags);
    if (num_ok(c->seq, "seq", e) < 0 || num_ok((uint64_t)c->thread_id, "thread id", e) < 0 ||
        num_ok(c->start_ns, "start_ns", e) < 0)
        return -1;
    if (c->seq == 0)
        return mct_err_set(e, MCT_E_PROTO, "seq 0 (they begin at 1)");
    if (c->thread_name == NULL || strlen(c->thread_name) > CALL_STR_MAX ||
        !proto_utf8_valid(c->thread_name, strlen(c->thread_name)))
        return mct_err_set(e, MCT_E_PROTO, "thread name: not UTF-8 of at most %d bytes", CALL_STR_MAX);
    if (c->exception != NULL && name_ok(c->exception, "exception", e) < 0)
        return -1;
    if (c->n_nodes == 0)
        return mct_err_set(e, MCT_E_PROTO, "no root node");
    if ((c->flags & CALL_F_PARENT) && (zero_bytes(c->parent.trace_id, 16) || zero_bytes(c->parent.span_id, 8)))
        return mct_err_set(e, MCT_E_PROTO, "trace parent: an all-zero id");
    if (c->n_args > 0 && !(c->flags & CALL_F_ARGS))
        return mct_err_set(e, MCT_E_PROTO, "%zu arguments in a call without them", c->n_args);
    if (c->n_args > CALL_MAX_ARGS)
        return mct_err_set(e, MCT_E_PROTO, "%zu arguments, over %d", c->n_args, CALL_MAX_ARGS);
    for (i = 0; i < c->n_args; i++)
        if (arg_ok(&c->args[i], i, e) < 0)
            return -1;
    for (i = 0; i < c->n_nodes; i++) {
        const struct call_node *nd = &c->nodes[i];

        if (i > 0 && depth == 0)
            return mct_err_set(e, MCT_E_PROTO, "%zu nodes after the root's tree", c->n_nodes - i);
        if (node_ok(t, c, nd, i, e) < 0)
            return -1;
        if (depth > 0)
            left[depth - 1]--;
        if (nd->n_children > 0) {
            if (depth + 1 >= CALL_MAX_DEPTH)
                return mct_err_set(e, MCT_E_PROTO, "the tree nests deeper than %d", CALL_MAX_DEPTH);
            left[depth++] = nd->n_children;
        }
        while (depth > 0 && left[depth - 1] == 0)
            depth--;
    }
    if (depth > 0)
        return mct_err_set(e, MCT_E_PROTO, "the tree ends with %u children missing", left[depth - 1]);
    return 0;
}

/* ---- the compact encoding ------------------------------------------------------- */

size_t call_frame_begin(mct_buf *b, unsigned type)
{
    size_t start = b->len;

    buf_take(b, PROTO_HEADER_LEN);
    if (type != 0)
        buf_u1(b, (uint8_t)type);
    return start;
}

int call_frame_end(mct_buf *b, size_t start)
{
    size_t len = b->len - start - PROTO_HEADER_LEN;

    if (buf_failed(b) || len > PROTO_MAX_REPLY) {
        b->len = start;
        b->failed = 0;
        return -1;
    }
    proto_header_encode(b->data + start, (uint32_t)len);
    return 0;
}

void call_defs_free(call_defs *d)
{
    free(d->bits);
    *d = (call_defs){0};
}

static int defs_has(const call_defs *d, uint32_t id)
{
    return id / 8 < d->n && (d->bits[id / 8] >> (id % 8) & 1);
}

static int defs_add(call_defs *d, uint32_t id)
{
    if (id >= CALL_MAX_ID)
        return -1;
    if (id / 8 >= d->n) {
        size_t n = d->n ? d->n : 64;
        unsigned char *p;

        while (id / 8 >= n)
            n *= 2;
        p = realloc(d->bits, n);
        if (p == NULL)
            return -1;
        memset(p + d->n, 0, n - d->n);
        d->bits = p;
        d->n = n;
    }
    d->bits[id / 8] |= (unsigned char)(1u << (id % 8));
    return 0;
}

/* A string: its length (u32), then its bytes. */
static void put_str(mct_buf *b, const char *s)
{
    size_t n = strlen(s);

    buf_u4(b, (uint32_t)n);
    buf_bytes(b, s, n);
}

static inline uint8_t *be32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
    return p + 4;
}

static inline uint8_t *be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
    return p + 8;
}

int call_encode(mct_buf *b, const call_tab *t, call_defs *defs, const mct_call *c)
{
    size_t start, i;
    uint8_t *w;

    for (i = 0; i < c->n_nodes; i++) {
        uint32_t id = c->nodes[i].method;
        const struct call_method *m = call_tab_get(t, id);

        if (defs_has(defs, id))
            continue;
        start = call_frame_begin(b, CALL_DEF);
        buf_u4(b, id);
        put_str(b, m->cls);
        put_str(b, m->name);
        put_str(b, m->desc);
        if (call_frame_end(b, start) < 0 || defs_add(defs, id) < 0)
            return -1;
    }
    start = call_frame_begin(b, CALL_REC);
    buf_u1(b, (uint8_t)c->flags);
    buf_u8(b, c->seq);
    buf_u8(b, (uint64_t)c->thread_id);
    buf_u8(b, c->start_ns);
    put_str(b, c->thread_name);
    put_str(b, c->exception != NULL ? c->exception : "");
    buf_u4(b, (uint32_t)c->n_nodes);
    w = buf_take(b, c->n_nodes * node_bytes(c->flags));
    for (i = 0; w != NULL && i < c->n_nodes; i++) {
        const struct call_node *nd = &c->nodes[i];

        w = be32(w, nd->method);
        *w++ = (uint8_t)nd->flags;
        w = be32(w, nd->n_children);
        w = be64(w, nd->calls);
        w = be64(w, nd->total_ns);
        w = be64(w, nd->self_ns);
        w = be64(w, nd->min_ns);
        w = be64(w, nd->max_ns);
        w = be64(w, nd->throws);
        if (c->flags & CALL_F_CPU)
            w = be64(w, nd->cpu_ns);
        if (c->flags & CALL_F_ALLOC)
            w = be64(w, nd->alloc_bytes);
    }
    for (i = 0; w != NULL && (c->flags & CALL_F_ASYNC) && i < c->n_nodes; i++) {
        const struct call_node *nd = &c->nodes[i];

        if (nd->flags & CALL_N_ASYNC)
            buf_u8(b, nd->handoff_ns);
        if ((nd->flags & (CALL_N_ASYNC | CALL_N_NOT_RUN)) == CALL_N_ASYNC) {
            buf_u8(b, nd->queued_ns);
            put_str(b, c->threads[nd->thread]);
        }
    }
    if (c->flags & CALL_F_ARGS) {
        buf_u1(b, (uint8_t)c->n_args);
        for (i = 0; i < c->n_args; i++) {
            const struct call_arg *a = &c->args[i];

            buf_u1(b, (uint8_t)a->type);
            if (a->type < CALL_ARG_NULL)
                buf_u8(b, a->bits);
            else if (a->type == CALL_ARG_STRING)
                buf_u4(b, (uint32_t)a->length);
            else if (a->type == CALL_ARG_OBJECT)
                buf_u4(b, (uint32_t)a->bits);
            if (a->text != NULL)
                put_str(b, a->text);
        }
    }
    if (c->flags & CALL_F_PARENT) {
        buf_bytes(b, c->parent.trace_id, 16);
        buf_bytes(b, c->parent.span_id, 8);
        buf_u1(b, c->parent.flags);
    }
    return call_frame_end(b, start);
}

/* ---- decoding ------------------------------------------------------------------ */

struct rd {
    const unsigned char *p, *end;
};

static uint64_t get_be(struct rd *r, int bytes)
{
    uint64_t v = 0;

    if (bytes == 8) {
        memcpy(&v, r->p, 8);
        v = __builtin_bswap64(v);
    } else if (bytes == 4) {
        uint32_t w;

        memcpy(&w, r->p, 4);
        v = __builtin_bswap32(w);
    } else {
        v = *r->p;
    }
    r->p += bytes;
    return v;
}

static int need(struct rd *r, size_t n, const char *what, mct_err *e)
{
    if ((size_t)(r->end - r->p) < n)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %s: %zu bytes needed, %zu left", what, n,
                           (size_t)(r->end - r->p));
    return 0;
}

/* A string into *buf (grown, NUL-terminated; *cap its size); min_len the
 * least length allowed. */
static int get_str(struct rd *r, char **buf, size_t *cap, size_t min_len, const char *what, mct_err *e)
{
    uint32_t n;

    if (need(r, 4, what, e) < 0)
        return -1;
    n = (uint32_t)get_be(r, 4);
    if ((size_t)(r->end - r->p) < n)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %s: a length of %u bytes does not fit the %zu left",
                           what, n, (size_t)(r->end - r->p));
    if (n < min_len)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %s: empty", what);
    if (!proto_utf8_valid((const char *)r->p, n))
        return mct_err_set(e, MCT_E_PROTO, "compact record: %s: not UTF-8, or holds a NUL byte", what);
    if (copy_str(buf, cap, (const char *)r->p, n) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
    r->p += n;
    return 0;
}

static int decode_def(call_tab *t, struct rd *r, mct_err *e)
{
    char *s[3] = {NULL, NULL, NULL};
    size_t cap[3] = {0, 0, 0};
    static const char *const what[3] = {"the method's class", "the method's name", "the method's descriptor"};
    uint32_t id;
    int i, rc = -1;

    if (need(r, 4, "definition", e) < 0)
        return -1;
    id = (uint32_t)get_be(r, 4);
    if (id >= CALL_MAX_ID)
        return mct_err_set(e, MCT_E_PROTO, "compact record: method number %u is over %u", id, CALL_MAX_ID - 1);
    if (call_tab_get(t, id) != NULL)
        return mct_err_set(e, MCT_E_PROTO, "compact record: method %u is defined twice", id);
    for (i = 0; i < 3; i++)
        if (get_str(r, &s[i], &cap[i], 1, what[i], e) < 0)
            goto out;
    if (r->p != r->end) {
        mct_err_set(e, MCT_E_PROTO, "compact record: %zu bytes after a definition", (size_t)(r->end - r->p));
        goto out;
    }
    if (call_tab_define(t, id, s[0], s[1], s[2], e) < 0) {
        mct_err_wrap(e, "compact record");
        goto out;
    }
    rc = CALL_DEF;
out:
    for (i = 0; i < 3; i++)
        free(s[i]);
    return rc;
}

/* The arguments after the nodes, with CALL_F_ARGS (none without). */
static int decode_args(mct_call *c, struct rd *r, mct_err *e)
{
    size_t n, i;

    if (!(c->flags & CALL_F_ARGS)) {
        args_clear(c);
        return 0;
    }
    if (need(r, 1, "argument count", e) < 0)
        return -1;
    n = (size_t)get_be(r, 1);
    if (call_args(c, n) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
    for (i = 0; i < n; i++) {
        struct call_arg *a = &c->args[i];
        size_t cap = 0;

        if (need(r, 1, "argument type", e) < 0)
            return -1;
        a->type = (unsigned)get_be(r, 1);
        if (a->type >= CALL_ARG_TYPES)
            return mct_err_set(e, MCT_E_PROTO, "compact record: argument %zu: unknown type %u", i, a->type);
        if (a->type < CALL_ARG_NULL) {
            if (need(r, 8, "argument", e) < 0)
                return -1;
            a->bits = get_be(r, 8);
        } else if (a->type == CALL_ARG_STRING || a->type == CALL_ARG_OBJECT) {
            if (need(r, 4, "argument", e) < 0)
                return -1;
            if (a->type == CALL_ARG_STRING)
                a->length = get_be(r, 4);
            else
                a->bits = get_be(r, 4);
        }
        if (a->type > CALL_ARG_NULL &&
            get_str(r, &a->text, &cap, a->type == CALL_ARG_OBJECT, "argument's text", e) < 0)
            return -1;
    }
    return 0;
}

static int decode_call(const call_tab *t, mct_call *c, struct rd *r, mct_err *e)
{
    uint32_t n;
    size_t i;

    if (need(r, CALL_FIXED, "call", e) < 0)
        return -1;
    c->flags = (unsigned)get_be(r, 1);
    c->seq = get_be(r, 8);
    c->thread_id = (int64_t)get_be(r, 8);
    c->start_ns = get_be(r, 8);
    if (get_str(r, &c->thread_name, &c->cap_name, 0, "thread name", e) < 0 ||
        get_str(r, &c->exception, &c->cap_exc, 0, "exception", e) < 0)
        return -1;
    if (c->exception[0] == '\0')
        set_exception(c, NULL);
    if (need(r, 4, "node count", e) < 0)
        return -1;
    n = (uint32_t)get_be(r, 4);
    if (n == 0 || (size_t)(r->end - r->p) / node_bytes(c->flags) < n)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %u nodes do not fit the %zu bytes left", n,
                           (size_t)(r->end - r->p));
    if (call_nodes(c, n) == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
    for (i = 0; i < n; i++) {
        struct call_node *nd = &c->nodes[i];

        nd->method = (uint32_t)get_be(r, 4);
        nd->flags = (unsigned)get_be(r, 1);
        nd->n_children = (uint32_t)get_be(r, 4);
        nd->calls = get_be(r, 8);
        nd->total_ns = get_be(r, 8);
        nd->self_ns = get_be(r, 8);
        nd->min_ns = get_be(r, 8);
        nd->max_ns = get_be(r, 8);
        nd->throws = get_be(r, 8);
        nd->cpu_ns = c->flags & CALL_F_CPU ? get_be(r, 8) : 0;
        nd->alloc_bytes = c->flags & CALL_F_ALLOC ? get_be(r, 8) : 0;
        nd->handoff_ns = 0;
        nd->queued_ns = 0;
        nd->thread = UINT32_MAX;
    }
    threads_clear(c);
    for (i = 0; (c->flags & CALL_F_ASYNC) && i < n; i++) {
        struct call_node *nd = &c->nodes[i];
        char *name = NULL;
        size_t cap = 0;
        int rc;

        if (!(nd->flags & CALL_N_ASYNC))
            continue;
        if (need(r, 8, "an async node's handoff_ns", e) < 0)
            return -1;
        nd->handoff_ns = get_be(r, 8);
        if (nd->flags & CALL_N_NOT_RUN)
            continue;
        if (need(r, 8, "an async node's queued_ns", e) < 0)
            return -1;
        nd->queued_ns = get_be(r, 8);
        if (get_str(r, &name, &cap, 0, "an async node's thread", e) < 0) {
            free(name);
            return -1;
        }
        rc = call_add_thread(c, name, &nd->thread);
        free(name);
        if (rc < 0)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
    }
    if (decode_args(c, r, e) < 0)
        return -1;
    memset(&c->parent, 0, sizeof c->parent);
    if (c->flags & CALL_F_PARENT) {
        if (need(r, 16 + 8 + 1, "trace parent", e) < 0)
            return -1;
        memcpy(c->parent.trace_id, r->p, 16);
        memcpy(c->parent.span_id, r->p + 16, 8);
        c->parent.flags = r->p[24];
        r->p += 16 + 8 + 1;
    }
    if (call_check(t, c, e) < 0)
        return mct_err_wrap(e, "compact record");
    if (r->p != r->end)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %zu bytes after a call", (size_t)(r->end - r->p));
    return CALL_REC;
}

int call_decode(call_tab *t, mct_call *c, const unsigned char *p, size_t n, mct_err *e)
{
    struct rd r = {p + 1, p + n};

    if (n == 0)
        return mct_err_set(e, MCT_E_PROTO, "compact record: empty");
    switch (p[0]) {
    case CALL_DEF: return decode_def(t, &r, e);
    case CALL_REC: return decode_call(t, c, &r, e);
    default: return mct_err_set(e, MCT_E_PROTO, "compact record: unknown type 0x%02x", p[0]);
    }
}

/* ---- the JSON writer ------------------------------------------------------------- */

/* jansson's escapes (JSON_COMPACT, no JSON_ENSURE_ASCII), then fu_json_dump's:
 * DEL and the C1 controls (0xc2 0x80..0x9f) as \u escapes. */
void call_json_str(mct_buf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)s, *run;

    buf_ch(b, '"');
    for (run = p; *p != '\0'; p++) {
        char esc[7];
        size_t k = 0;
        unsigned c = *p;

        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f && !(c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            continue;
        buf_bytes(b, run, (size_t)(p - run));
        switch (c) {
        case '"': esc[k++] = '\\'; esc[k++] = '"'; break;
        case '\\': esc[k++] = '\\'; esc[k++] = '\\'; break;
        case '\b': esc[k++] = '\\'; esc[k++] = 'b'; break;
        case '\f': esc[k++] = '\\'; esc[k++] = 'f'; break;
        case '\n': esc[k++] = '\\'; esc[k++] = 'n'; break;
        case '\r': esc[k++] = '\\'; esc[k++] = 'r'; break;
        case '\t': esc[k++] = '\\'; esc[k++] = 't'; break;
        default:
            if (c == 0xc2)
                c = *++p; /* U+0080..U+009F */
            esc[k++] = '\\';
            esc[k++] = 'u';
            esc[k++] = '0';
            esc[k++] = '0';
            esc[k++] = hex[c >> 4];
            esc[k++] = hex[c & 15];
        }
        buf_bytes(b, esc, k);
        run = p + 1;
    }
    buf_bytes(b, run, (size_t)(p - run));
    buf_ch(b, '"');
}

/* Writes the literal s at w; the end. */
#define LIT(w, s) (memcpy((w), (s), sizeof(s) - 1), (w) + sizeof(s) - 1)

/* The most a node's text holds besides its names and its children's text
 * (its figures, the comma before it, its children's brackets). */
#define NODE_TEXT_MAX 480

/* v in decimal, with its sign. */
static void sdec(mct_buf *b, int64_t v)
{
    if (v < 0)
        buf_ch(b, '-');
    buf_dec(b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* The UTF-8 of u, a code point of the BMP other than U+0000 and the
 * surrogates, at p (NUL-terminated). */
static void utf8_bmp(char *p, uint32_t u)
{
    unsigned char *q = (unsigned char *)p;

    if (u < 0x80) {
        *q++ = (unsigned char)u;
    } else if (u < 0x800) {
        *q++ = (unsigned char)(0xc0 | u >> 6);
        *q++ = (unsigned char)(0x80 | (u & 0x3f));
    } else {
        *q++ = (unsigned char)(0xe0 | u >> 12);
        *q++ = (unsigned char)(0x80 | (u >> 6 & 0x3f));
        *q++ = (unsigned char)(0x80 | (u & 0x3f));
    }
    *q = '\0';
}

/* A float's or double's value: a JSON number that reads back to the same
 * bits (always with a point or an exponent, so that -0.0 stays a real), or
 * Java's names of the others as strings. */
static void float_json(mct_buf *b, double d, int dbl)
{
    char num[40];

    if (isnan(d)) {
        buf_str(b, "\"NaN\"");
    } else if (isinf(d)) {
        buf_str(b, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    } else {
        snprintf(num, sizeof num, dbl ? "%.17g" : "%.9g", d);
        buf_str(b, num);
        if (strpbrk(num, ".e") == NULL)
            buf_str(b, ".0");
    }
}

/* One argument as {"type":..,...}. */
static void arg_json(mct_buf *b, const struct call_arg *a)
{
    char ch[8];

    buf_str(b, "{\"type\":\"");
    buf_str(b, arg_type_names[a->type]);
    buf_ch(b, '"');
    switch (a->type) {
    case CALL_ARG_BOOLEAN:
        buf_str(b, a->bits ? ",\"value\":true" : ",\"value\":false");
        break;
    case CALL_ARG_BYTE:
        buf_str(b, ",\"value\":");
        sdec(b, (int8_t)a->bits);
        break;
    case CALL_ARG_SHORT:
        buf_str(b, ",\"value\":");
        sdec(b, (int16_t)a->bits);
        break;
    case CALL_ARG_INT:
        buf_str(b, ",\"value\":");
        sdec(b, (int32_t)a->bits);
        break;
    case CALL_ARG_LONG:
        buf_str(b, ",\"value\":");
        sdec(b, (int64_t)a->bits);
        break;
    case CALL_ARG_CHAR:
        /* A character as a one-character string; U+0000 and a lone
         * surrogate, which a C string or UTF-8 cannot hold, as a number. */
        buf_str(b, ",\"value\":");
        if (a->bits == 0 || (a->bits >= 0xd800 && a->bits <= 0xdfff)) {
            buf_dec(b, a->bits);
        } else {
            utf8_bmp(ch, (uint32_t)a->bits);
            call_json_str(b, ch);
        }
        break;
    case CALL_ARG_FLOAT: {
        uint32_t v = (uint32_t)a->bits;
        float f;

        memcpy(&f, &v, 4);
        buf_str(b, ",\"value\":");
        float_json(b, f, 0);
        break;
    }
    case CALL_ARG_DOUBLE: {
        double d;

        memcpy(&d, &a->bits, 8);
        buf_str(b, ",\"value\":");
        float_json(b, d, 1);
        break;
    }
    case CALL_ARG_STRING:
    case CALL_ARG_ENUM:
        buf_str(b, ",\"value\":");
        call_json_str(b, a->text);
        if (a->type == CALL_ARG_STRING) {
            buf_str(b, ",\"length\":");
            buf_dec(b, a->length);
        }
        break;
    case CALL_ARG_OBJECT:
        buf_str(b, ",\"class\":");
        call_json_str(b, a->text);
        buf_str(b, ",\"hash\":");
        sdec(b, (int32_t)a->bits);
        break;
    default:
        break;
    }
    buf_ch(b, '}');
}

/* The root's "args":[...]. */
static void args_line(mct_buf *b, const mct_call *c)
{
    size_t i;

    buf_str(b, ",\"args\":[");
    for (i = 0; i < c->n_args; i++) {
        if (i > 0)
            buf_ch(b, ',');
        arg_json(b, &c->args[i]);
    }
    buf_ch(b, ']');
}

/* Node i and its subtree, after a comma when sep; the index after it (b
 * failed when out of memory). A leaf's text, most nodes', is written in
 * one piece. */
static size_t node_line(mct_buf *b, const call_tab *t, const mct_call *c, size_t i, int sep)
{
    const struct call_node *nd = &c->nodes[i];
    const struct call_method *m = t->m[nd->method];
    /* a task that ran on another thread: its queue time and that thread */
    int ran_async = (nd->flags & (CALL_N_ASYNC | CALL_N_NOT_RUN)) == CALL_N_ASYNC;
    int closed = !ran_async && i > 0 && nd->n_children == 0;
    size_t j = i + 1;
    uint32_t k;
    char *w0, *w;

    w0 = w = (char *)buf_take(b, m->keys_len + NODE_TEXT_MAX);
    if (w == NULL)
        return j;
    if (sep)
        *w++ = ',';
    *w++ = '{';
    memcpy(w, m->keys, m->keys_len);
    w += m->keys_len;
    w = buf_dec_at(LIT(w, ",\"calls\":"), nd->calls);
    w = buf_dec_at(LIT(w, ",\"total_ns\":"), nd->total_ns);
    w = buf_dec_at(LIT(w, ",\"self_ns\":"), nd->self_ns);
    w = buf_dec_at(LIT(w, ",\"min_ns\":"), nd->min_ns);
    w = buf_dec_at(LIT(w, ",\"max_ns\":"), nd->max_ns);
    w = buf_dec_at(LIT(w, ",\"throws\":"), nd->throws);
    if (c->flags & CALL_F_CPU) {
        w = buf_dec_at(LIT(w, ",\"cpu_ns\":"), nd->cpu_ns);
        w = buf_dec_at(LIT(w, ",\"wait_ns\":"), nd->total_ns - nd->cpu_ns);
    }
    if (c->flags & CALL_F_ALLOC)
        w = buf_dec_at(LIT(w, ",\"alloc_bytes\":"), nd->alloc_bytes);
    if (nd->flags & CALL_N_TRUNCATED)
        w = LIT(w, ",\"truncated\":true");
    if (nd->flags & CALL_N_ASYNC)
        w = LIT(w, ",\"async\":true");
    if (nd->flags & CALL_N_PENDING)
        w = LIT(w, ",\"pending\":true");
    if (nd->flags & CALL_N_REJECTED)
        w = LIT(w, ",\"rejected\":true");
    if (nd->flags & CALL_N_CANCELLED)
        w = LIT(w, ",\"cancelled\":true");
    if (nd->flags & CALL_N_ASYNC)
        w = buf_dec_at(LIT(w, ",\"handoff_ns\":"), nd->handoff_ns);
    if (ran_async)
        w = buf_dec_at(LIT(w, ",\"queued_ns\":"), nd->queued_ns);
    if (!ran_async)
        w = LIT(w, ",\"children\":[");
    if (closed)
        w = LIT(w, "]}");
    b->len -= m->keys_len + NODE_TEXT_MAX - (size_t)(w - w0);
    if (closed)
        return j;
    if (ran_async) {
        buf_str(b, ",\"thread\":");
        call_json_str(b, c->threads[nd->thread]);
        buf_str(b, ",\"children\":[");
    }
    for (k = 0; k < nd->n_children && !buf_failed(b); k++)
        j = node_line(b, t, c, j, k > 0);
    buf_ch(b, ']');
    if (i == 0 && c->exception != NULL) {
        buf_str(b, ",\"exception\":");
        call_json_str(b, c->exception);
    }
    if (i == 0 && (c->flags & CALL_F_ARGS))
        args_line(b, c);
    buf_ch(b, '}');
    return j;
}

int call_json_line(mct_buf *b, const call_tab *t, const mct_call *c)
{
    buf_str(b, "{\"type\":\"call\",\"seq\":");
    buf_dec(b, c->seq);
    buf_str(b, ",\"thread\":{\"id\":");
    buf_dec(b, (uint64_t)c->thread_id);
    buf_str(b, ",\"name\":");
    call_json_str(b, c->thread_name);
    buf_str(b, "},\"start_ns\":");
    buf_dec(b, c->start_ns);
    buf_str(b, ",\"root\":");
    node_line(b, t, c, 0, 0);
    if (c->flags & CALL_F_WARMUP)
        buf_str(b, ",\"warmup\":true");
    if (c->flags & CALL_F_PARENT) {
        char tp[CALL_TRACEPARENT_LEN + 1];

        call_parent_write(&c->parent, tp);
        buf_str(b, ",\"trace_parent\":\"");
        buf_str(b, tp);
        buf_ch(b, '"');
    }
    buf_str(b, "}\n");
    return buf_failed(b) ? -1 : 0;
}

int call_json_frame(mct_buf *b, const call_tab *t, const mct_call *c)
{
    size_t start = call_frame_begin(b, 0);

    call_json_line(b, t, c);
    if (!buf_failed(b))
        b->len--; /* the newline */
    return call_frame_end(b, start);
}

json_t *call_args_json(const mct_call *c)
{
    mct_buf b;
    json_t *j = NULL;

    if (!(c->flags & CALL_F_ARGS))
        return NULL;
    buf_init(&b);
    args_line(&b, c);
    /* past ,"args": */
    if (!buf_failed(&b))
        j = json_loadb((const char *)b.data + 8, b.len - 8, 0, NULL);
    buf_free(&b);
    return j;
}

json_t *call_json(const call_tab *t, const mct_call *c)
{
    mct_buf b;
    json_t *j = NULL;

    buf_init(&b);
    if (call_json_line(&b, t, c) == 0)
        j = json_loadb((const char *)b.data, b.len - 1, 0, NULL);
    buf_free(&b);
    return j;
}

/* ---- the JSON reader ------------------------------------------------------------- */

/* Where the reader is, as "root.children[2]", for messages; what: the
 * document ("call", "summary"). */
struct jpath {
    const char *what;
    char buf[160];
    size_t len;
};

/* Appends key, and [i] when i >= 0; the mark to pop back to. */
static size_t jpush(struct jpath *p, const char *key, long i)
{
    size_t mark = p->len;
    const char *dot = p->len > 0 ? "." : "";
    int n = i < 0 ? snprintf(p->buf + p->len, sizeof p->buf - p->len, "%s%s", dot, key)
                  : snprintf(p->buf + p->len, sizeof p->buf - p->len, "%s%s[%ld]", dot, key, i);

    if (n > 0)
        p->len = p->len + (size_t)n < sizeof p->buf ? p->len + (size_t)n : sizeof p->buf - 1;
    return mark;
}

static void jpop(struct jpath *p, size_t mark)
{
    p->len = mark;
    p->buf[mark] = '\0';
}

static int jbad(mct_err *e, const struct jpath *p, const char *key, const char *msg)
{
    return mct_err_set(e, MCT_E_PROTO, "%s: %s%s%s: %s", p->what, p->buf, p->len > 0 && key != NULL ? "." : "",
                       key != NULL ? key : "", msg);
}

/* obj[key] as an integer >= 0 into *v. */
static int jint(const json_t *obj, const char *key, uint64_t *v, const struct jpath *p, mct_err *e)
{
    const json_t *j = json_object_get(obj, key);

    if (j == NULL)
        return jbad(e, p, key, "missing (an integer >= 0)");
    if (!json_is_integer(j) || json_integer_value(j) < 0)
        return jbad(e, p, key, "not an integer >= 0");
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

/* obj[key] as a string of min_len to CALL_STR_MAX bytes without NUL, or
 * NULL when absent and optional. */
static int jstr(const json_t *obj, const char *key, int optional, size_t min_len, const char **s,
                const struct jpath *p, mct_err *e)
{
    const json_t *j = json_object_get(obj, key);

    *s = NULL;
    if (j == NULL)
        return optional ? 0 : jbad(e, p, key, "missing (a string)");
    if (!json_is_string(j))
        return jbad(e, p, key, "not a string");
    if (json_string_length(j) < min_len || json_string_length(j) > CALL_STR_MAX)
        return jbad(e, p, key, min_len ? "not a string of 1 to 65535 bytes" : "a string over 65535 bytes");
    if (strlen(json_string_value(j)) != json_string_length(j))
        return jbad(e, p, key, "holds a NUL character");
    *s = json_string_value(j);
    return 0;
}

/* obj[key], when present, is a boolean; *v its value (absent: 0). */
static int jbool(const json_t *obj, const char *key, int *v, const struct jpath *p, mct_err *e)
{
    const json_t *j = json_object_get(obj, key);

    *v = json_is_true(j);
    return j == NULL || json_is_boolean(j) ? 0 : jbad(e, p, key, "not true or false");
}

/* A float's (dbl: a double's) value j, as float_json writes it, to bits. */
static int jfloat(const json_t *j, int dbl, uint64_t *bits)
{
    double d;

    if (json_is_string(j)) {
        const char *s = json_string_value(j);

        if (strcmp(s, "NaN") == 0)
            d = NAN;
        else if (strcmp(s, "Infinity") == 0)
            d = INFINITY;
        else if (strcmp(s, "-Infinity") == 0)
            d = -INFINITY;
        else
            return -1;
    } else if (json_is_number(j)) {
        d = json_number_value(j);
    } else {
        return -1;
    }
    if (dbl) {
        if (isnan(d))
            *bits = UINT64_C(0x7ff8000000000000);
        else
            memcpy(bits, &d, 8);
    } else {
        float f = (float)d;
        uint32_t v;

        if (isinf(f) && !isinf(d))
            return -1;
        memcpy(&v, &f, 4);
        *bits = isnan(f) ? 0x7fc00000u : v;
    }
    return 0;
}

/* One argument a (untrusted) into arg. */
static int jarg(const json_t *a, struct call_arg *arg, const struct jpath *p, mct_err *e)
{
    /* The range of each integer type's value. */
    static const long long lo[CALL_ARG_LONG + 1] = {0, -128, 0, -32768, INT32_MIN, INT64_MIN};
    static const long long hi[CALL_ARG_LONG + 1] = {1, 127, 0xffff, 32767, INT32_MAX, INT64_MAX};
    const json_t *type = json_object_get(a, "type"), *v;
    const char *text;
    unsigned t;

    if (!json_is_object(a))
        return jbad(e, p, NULL, "not an object (an argument)");
    if (!json_is_string(type))
        return jbad(e, p, "type", "missing or not a string");
    for (t = 0; t < CALL_ARG_TYPES && strcmp(json_string_value(type), arg_type_names[t]) != 0; t++)
        ;
    if (t == CALL_ARG_TYPES)
        return jbad(e, p, "type", "not an argument's type (boolean, byte, char, short, int, long, float, double, "
                                  "null, String, enum, object)");
    arg->type = t;
    v = json_object_get(a, "value");
    switch (t) {
    case CALL_ARG_BOOLEAN:
        if (!json_is_boolean(v))
            return jbad(e, p, "value", "missing or not true or false");
        arg->bits = json_is_true(v);
        break;
    case CALL_ARG_CHAR:
        if (json_is_string(v)) {
            const unsigned char *c = (const unsigned char *)json_string_value(v);
            size_t len = json_string_length(v);

            /* One character of the BMP, as arg_json writes it. */
            if (len == 1 && c[0] < 0x80 && c[0] > 0)
                arg->bits = c[0];
            else if (len == 2 && (c[0] & 0xe0) == 0xc0)
                arg->bits = (uint64_t)(c[0] & 0x1f) << 6 | (c[1] & 0x3f);
            else if (len == 3 && (c[0] & 0xf0) == 0xe0)
                arg->bits = (uint64_t)(c[0] & 0x0f) << 12 | (uint64_t)(c[1] & 0x3f) << 6 | (c[2] & 0x3f);
            else
                return jbad(e, p, "value", "not one character of the BMP");
            if (arg->bits >= 0xd800 && arg->bits <= 0xdfff)
                return jbad(e, p, "value", "not one character of the BMP");
            break;
        }
        /* fall through */
    case CALL_ARG_BYTE:
    case CALL_ARG_SHORT:
    case CALL_ARG_INT:
    case CALL_ARG_LONG:
        if (!json_is_integer(v) || json_integer_value(v) < lo[t] || json_integer_value(v) > hi[t])
            return jbad(e, p, "value", "missing, or not an integer in the type's range");
        arg->bits = (uint64_t)json_integer_value(v);
        if (t != CALL_ARG_LONG)
            arg->bits &= t == CALL_ARG_BYTE ? 0xffu : t == CALL_ARG_INT ? 0xffffffffu : 0xffffu;
        break;
    case CALL_ARG_FLOAT:
    case CALL_ARG_DOUBLE:
        if (jfloat(v, t == CALL_ARG_DOUBLE, &arg->bits) < 0)
            return jbad(e, p, "value", "missing, or not a number of the type (or \"NaN\", \"Infinity\", "
                                       "\"-Infinity\")");
        break;
    case CALL_ARG_STRING:
    case CALL_ARG_ENUM:
    case CALL_ARG_OBJECT:
        if (jstr(a, t == CALL_ARG_OBJECT ? "class" : "value", 0, t == CALL_ARG_OBJECT, &text, p, e) < 0)
            return -1;
        if (call_arg_text(arg, text, strlen(text)) < 0)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
        if (t == CALL_ARG_STRING && jint(a, "length", &arg->length, p, e) < 0)
            return -1;
        if (t == CALL_ARG_OBJECT) {
            v = json_object_get(a, "hash");
            if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN || json_integer_value(v) > INT32_MAX)
                return jbad(e, p, "hash", "missing, or not a 32-bit integer");
            arg->bits = (uint32_t)json_integer_value(v);
        }
        break;
    default:
        break;
    }
    return 0;
}

/* The root's "args" (absent: none) into c. */
static int jargs(mct_call *c, const json_t *n, struct jpath *p, mct_err *e)
{
    const json_t *arr = json_object_get(n, "args");
    size_t i;

    if (arr == NULL) {
        args_clear(c);
        return 0;
    }
    if (!json_is_array(arr) || json_array_size(arr) > CALL_MAX_ARGS)
        return jbad(e, p, "args", "not an array of at most 255 arguments");
    c->flags |= CALL_F_ARGS;
    if (call_args(c, json_array_size(arr)) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    for (i = 0; i < json_array_size(arr); i++) {
        size_t mark = jpush(p, "args", (long)i);

        if (jarg(json_array_get(arr, i), &c->args[i], p, e) < 0)
            return -1;
        jpop(p, mark);
    }
    return 0;
}

/* Reads node n at depth (1: the root) and its subtree into c's nodes. */
static int jnode(call_tab *t, mct_call *c, const json_t *n, int depth, struct jpath *p, mct_err *e)
{
    static const char *const ints[] = {"calls", "total_ns", "self_ns", "min_ns", "max_ns", "throws"};
    uint64_t v[6], cpu = 0, alloc = 0;
    const char *cls, *method, *desc, *exc;
    const json_t *kids;
    struct call_node *nd;
    size_t at = c->n_nodes, i;
    int truncated, async, pending, rejected, cancelled;
    uint64_t queued = 0, handoff = 0;
    uint32_t thread = UINT32_MAX;
    const char *tname = NULL;
    uint32_t id;

    if (!json_is_object(n))
        return jbad(e, p, NULL, "not an object (a node)");
    if (depth > CALL_MAX_DEPTH)
        return jbad(e, p, NULL, "nested deeper than 64 levels");
    if (jstr(n, "class", 0, 1, &cls, p, e) < 0 || jstr(n, "method", 0, 1, &method, p, e) < 0 ||
        jstr(n, "desc", 0, 1, &desc, p, e) < 0 || jstr(n, "exception", 1, 1, &exc, p, e) < 0 ||
        jbool(n, "truncated", &truncated, p, e) < 0 || jbool(n, "async", &async, p, e) < 0 ||
        jbool(n, "pending", &pending, p, e) < 0 || jbool(n, "rejected", &rejected, p, e) < 0 ||
        jbool(n, "cancelled", &cancelled, p, e) < 0)
        return -1;
    if ((pending || rejected || cancelled) && !async)
        return jbad(e, p, pending ? "pending" : rejected ? "rejected" : "cancelled", "true on a node that is not async");
    if (async ? jint(n, "handoff_ns", &handoff, p, e) < 0 : json_object_get(n, "handoff_ns") != NULL)
        return async ? -1 : jbad(e, p, "handoff_ns", "present on a node that is not async");
    if (async && !pending && !rejected && !cancelled) {
        if (jstr(n, "thread", 0, 0, &tname, p, e) < 0 || jint(n, "queued_ns", &queued, p, e) < 0)
            return -1;
    } else if (json_object_get(n, "thread") != NULL || json_object_get(n, "queued_ns") != NULL) {
        return jbad(e, p, json_object_get(n, "thread") != NULL ? "thread" : "queued_ns",
                    "present on a node that is not an async task that ran");
    }
    if (async)
        c->flags |= CALL_F_ASYNC;
    if (tname != NULL && call_add_thread(c, tname, &thread) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    if (exc != NULL && depth > 1)
        return jbad(e, p, "exception", "only the root may hold one");
    if (depth > 1 && json_object_get(n, "args") != NULL)
        return jbad(e, p, "args", "only the root may hold them");
    if (depth == 1 && jargs(c, n, p, e) < 0)
        return -1;
    for (i = 0; i < 6; i++)
        if (jint(n, ints[i], &v[i], p, e) < 0)
            return -1;
    /* The root says whether the nodes hold CPU times and allocations: all
     * do, or none. */
    if (depth == 1 && json_object_get(n, "cpu_ns") != NULL)
        c->flags |= CALL_F_CPU;
    if (c->flags & CALL_F_CPU) {
        if (jint(n, "cpu_ns", &cpu, p, e) < 0)
            return -1;
    } else if (json_object_get(n, "cpu_ns") != NULL) {
        return jbad(e, p, "cpu_ns", "present though the root has none");
    }
    if (depth == 1 && json_object_get(n, "alloc_bytes") != NULL)
        c->flags |= CALL_F_ALLOC;
    if (c->flags & CALL_F_ALLOC) {
        if (jint(n, "alloc_bytes", &alloc, p, e) < 0)
            return -1;
    } else if (json_object_get(n, "alloc_bytes") != NULL) {
        return jbad(e, p, "alloc_bytes", "present though the root has none");
    }
    kids = json_object_get(n, "children");
    if (kids == NULL)
        return jbad(e, p, "children", "missing (an array of nodes)");
    if (!json_is_array(kids))
        return jbad(e, p, "children", "not an array");
    if (call_tab_intern(t, cls, method, desc, &id, e) < 0)
        return -1;
    if (depth == 1 && set_exception(c, exc) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    if (call_nodes(c, at + 1) == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    nd = &c->nodes[at];
    *nd = (struct call_node){
        .method = id, .n_children = (uint32_t)json_array_size(kids),
        .flags = (truncated ? CALL_N_TRUNCATED : 0u) | (async ? CALL_N_ASYNC : 0u) | (pending ? CALL_N_PENDING : 0u) |
                 (rejected ? CALL_N_REJECTED : 0u) | (cancelled ? CALL_N_CANCELLED : 0u),
        .calls = v[0], .total_ns = v[1], .self_ns = v[2], .min_ns = v[3], .max_ns = v[4], .throws = v[5],
        .cpu_ns = cpu, .alloc_bytes = alloc, .handoff_ns = handoff, .queued_ns = queued, .thread = thread,
    };
    for (i = 0; i < json_array_size(kids); i++) {
        size_t mark = jpush(p, "children", (long)i);

        if (jnode(t, c, json_array_get(kids, i), depth + 1, p, e) < 0)
            return -1;
        jpop(p, mark);
    }
    return 0;
}

/* The call's "trace_parent" (absent: none) into c. */
static int jparent(mct_call *c, const json_t *j, const struct jpath *p, mct_err *e)
{
    const json_t *v = json_object_get(j, "trace_parent");

    memset(&c->parent, 0, sizeof c->parent);
    if (v == NULL)
        return 0;
    if (!json_is_string(v) || call_parent_read(json_string_value(v), json_string_length(v), &c->parent) < 0)
        return jbad(e, p, "trace_parent", "not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>, ids not all zero)");
    c->flags |= CALL_F_PARENT;
    return 0;
}

/* call_from_json at path p. */
static int from_json(call_tab *t, mct_call *c, const json_t *j, struct jpath *p0, mct_err *e)
{
    struct jpath p = *p0;
    const json_t *type = json_object_get(j, "type"), *th;
    const char *name;
    uint64_t tid;
    int warmup;
    size_t mark;

    if (!json_is_object(j))
        return jbad(e, &p, NULL, "not a JSON object");
    if (type == NULL)
        return jbad(e, &p, "type", "missing (\"call\")");
    if (!json_is_string(type) || strcmp(json_string_value(type), "call") != 0)
        return jbad(e, &p, "type", "not \"call\"");
    if (jint(j, "seq", &c->seq, &p, e) < 0 || jint(j, "start_ns", &c->start_ns, &p, e) < 0 ||
        jbool(j, "warmup", &warmup, &p, e) < 0)
        return -1;
    if (c->seq == 0)
        return jbad(e, &p, "seq", "0 (they begin at 1)");
    c->flags = warmup ? CALL_F_WARMUP : 0u;
    if (jparent(c, j, &p, e) < 0)
        return -1;
    th = json_object_get(j, "thread");
    if (th == NULL)
        return jbad(e, &p, "thread", "missing (an object)");
    if (!json_is_object(th))
        return jbad(e, &p, "thread", "not an object");
    mark = jpush(&p, "thread", -1);
    if (jint(th, "id", &tid, &p, e) < 0 || jstr(th, "name", 1, 0, &name, &p, e) < 0)
        return -1;
    jpop(&p, mark);
    c->thread_id = (int64_t)tid;
    if (call_set_names(c, name, NULL) < 0)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a call");
    c->n_nodes = 0;
    if (json_object_get(j, "root") == NULL)
        return jbad(e, &p, "root", "missing (a node)");
    mark = jpush(&p, "root", -1);
    if (jnode(t, c, json_object_get(j, "root"), 1, &p, e) < 0)
        return -1;
    jpop(&p, mark);
    if (call_check(t, c, e) < 0)
        return p.len > 0 ? mct_err_wrap(e, "%s: %s", p.what, p.buf) : mct_err_wrap(e, "%s", p.what);
    return 0;
}

int call_from_json(call_tab *t, mct_call *c, const json_t *j, mct_err *e)
{
    struct jpath p = {.what = "call"};

    return from_json(t, c, j, &p, e);
}

int call_json_check_at(const json_t *j, const char *what, const char *at, mct_err *e)
{
    struct jpath p = {.what = what};
    call_tab t = {0};
    mct_call c = {0};
    int rc;

    snprintf(p.buf, sizeof p.buf, "%s", at);
    p.len = strlen(p.buf);
    rc = from_json(&t, &c, j, &p, e);

    call_free(&c);
    call_tab_free(&t);
    return rc;
}

int call_json_check(const json_t *j, mct_err *e)
{
    return call_json_check_at(j, "call", "", e);
}
