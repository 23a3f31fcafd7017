/* crec.c — see crec.h. Numbers are big-endian, as the frame header's. */
#include "crec.h"

#include <stdlib.h>
#include <string.h>

#include "proto.h"

/* A call's fixed part after its type byte: flags, seq, thread id, start. */
#define CALL_FIXED (1 + 8 + 8 + 8)

/* ---- encoding ---------------------------------------------------------------- */

/* Room for n more bytes in b; 0 or -1 (b->failed set). */
static int room(crec_buf *b, size_t n)
{
    if (b->failed)
        return -1;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 4096;
        unsigned char *p;

        while (cap - b->len < n)
            cap *= 2;
        p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = 1;
            return -1;
        }
        b->p = p;
        b->cap = cap;
    }
    return 0;
}

unsigned char *crec_reserve(crec_buf *b, size_t n)
{
    if (room(b, n) < 0)
        return NULL;
    b->len += n;
    return b->p + b->len - n;
}

static void put_be(crec_buf *b, uint64_t v, int bytes)
{
    int i;

    if (room(b, (size_t)bytes) < 0)
        return;
    for (i = bytes - 1; i >= 0; i--)
        b->p[b->len++] = (unsigned char)(v >> (8 * i));
}

void crec_put_u8(crec_buf *b, unsigned v)
{
    put_be(b, v, 1);
}

void crec_put_u32(crec_buf *b, uint32_t v)
{
    put_be(b, v, 4);
}

void crec_put_u64(crec_buf *b, uint64_t v)
{
    put_be(b, v, 8);
}

void crec_put_str(crec_buf *b, const char *s, size_t n)
{
    put_be(b, n, 4);
    if (room(b, n) < 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

size_t crec_frame_begin(crec_buf *b, unsigned type)
{
    size_t start = b->len;

    if (room(b, PROTO_HEADER_LEN + 1) == 0) {
        b->len += PROTO_HEADER_LEN;
        b->p[b->len++] = (unsigned char)type;
    }
    return start;
}

int crec_frame_end(crec_buf *b, size_t start)
{
    size_t len = b->len - start - PROTO_HEADER_LEN;

    if (b->failed || len > PROTO_MAX_REPLY) {
        b->len = start;
        b->failed = 0;
        return -1;
    }
    proto_header_encode(b->p + start, (uint32_t)len);
    return 0;
}

void crec_buf_reset(crec_buf *b)
{
    b->len = 0;
    b->failed = 0;
}

void crec_buf_free(crec_buf *b)
{
    free(b->p);
    *b = (crec_buf){0};
}

int crec_defs_has(const crec_defs *d, uint32_t id)
{
    return id / 8 < d->n && (d->bits[id / 8] >> (id % 8) & 1);
}

int crec_defs_add(crec_defs *d, uint32_t id)
{
    if (id >= CREC_MAX_ID)
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

void crec_defs_free(crec_defs *d)
{
    free(d->bits);
    *d = (crec_defs){0};
}

/* ---- JSON text ----------------------------------------------------------------- */

static int text_room(crec_text *x, size_t n)
{
    if (x->cap - x->len < n) {
        size_t cap = x->cap ? x->cap : 4096;
        char *p;

        while (cap - x->len < n)
            cap *= 2;
        p = realloc(x->p, cap);
        if (p == NULL)
            return -1;
        x->p = p;
        x->cap = cap;
    }
    return 0;
}

static int text_put(crec_text *x, const char *s, size_t n)
{
    if (text_room(x, n) < 0)
        return -1;
    memcpy(x->p + x->len, s, n);
    x->len += n;
    return 0;
}

#define PUT_LIT(x, s) text_put((x), (s), sizeof(s) - 1)

/* Writes v in decimal at w; the end. */
static char *dec(char *w, uint64_t v)
{
    char d[20];
    int i = 20;

    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    memcpy(w, d + i, (size_t)(20 - i));
    return w + 20 - i;
}

static int text_u64(crec_text *x, uint64_t v)
{
    char d[20];

    return text_put(x, d, (size_t)(dec(d, v) - d));
}

void crec_text_free(crec_text *x)
{
    free(x->p);
    *x = (crec_text){0};
}

/* jansson's escapes (JSON_COMPACT, no JSON_ENSURE_ASCII), then fu_json_dump's:
 * DEL and the C1 controls (0xc2 0x80..0x9f) as \u escapes. */
int crec_text_jstr(crec_text *x, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = (const unsigned char *)s, *run;
    size_t n = strlen(s);

    if (text_room(x, n + 2) < 0)
        return -1;
    x->p[x->len++] = '"';
    for (run = p; *p != '\0'; p++) {
        char esc[7];
        size_t k = 0;
        unsigned c = *p;

        if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f && !(c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            continue;
        if (text_put(x, (const char *)run, (size_t)(p - run)) < 0)
            return -1;
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
        if (text_put(x, esc, k) < 0)
            return -1;
        run = p + 1;
    }
    if (text_put(x, (const char *)run, (size_t)(p - run)) < 0 || text_put(x, "\"", 1) < 0)
        return -1;
    return 0;
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

/* A u64 that must fit a JSON integer >= 0. */
static int get_num(struct rd *r, uint64_t *v, const char *what, mct_err *e)
{
    *v = get_be(r, 8);
    if (*v > (uint64_t)INT64_MAX)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %s: %llu is over %lld", what,
                           (unsigned long long)*v, (long long)INT64_MAX);
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
    if (*cap < (size_t)n + 1) {
        char *p = realloc(*buf, (size_t)n + 1);

        if (p == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
        *buf = p;
        *cap = (size_t)n + 1;
    }
    memcpy(*buf, r->p, n);
    (*buf)[n] = '\0';
    r->p += n;
    return 0;
}

static void method_free(struct crec_method *m)
{
    if (m == NULL)
        return;
    free(m->cls);
    free(m->name);
    free(m->desc);
    free(m->keys);
    free(m);
}

void crec_tab_free(crec_tab *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        method_free(t->m[i]);
    free(t->m);
    *t = (crec_tab){0};
}

void crec_call_free(crec_call *c)
{
    free(c->thread_name);
    free(c->exception);
    free(c->nodes);
    *c = (crec_call){0};
}

/* The three keys of m as JSON text, once. */
static int method_keys(struct crec_method *m)
{
    crec_text x = {0};

    if (PUT_LIT(&x, "\"class\":") < 0 || crec_text_jstr(&x, m->cls) < 0 || PUT_LIT(&x, ",\"method\":") < 0 ||
        crec_text_jstr(&x, m->name) < 0 || PUT_LIT(&x, ",\"desc\":") < 0 || crec_text_jstr(&x, m->desc) < 0) {
        crec_text_free(&x);
        return -1;
    }
    m->keys = x.p;
    m->keys_len = x.len;
    return 0;
}

static int decode_def(crec_tab *t, struct rd *r, mct_err *e)
{
    struct crec_method *m;
    size_t cap_cls = 0, cap_name = 0, cap_desc = 0;
    uint32_t id;

    if (need(r, 4, "definition", e) < 0)
        return -1;
    id = (uint32_t)get_be(r, 4);
    if (id >= CREC_MAX_ID)
        return mct_err_set(e, MCT_E_PROTO, "compact record: method number %u is over %u", id, CREC_MAX_ID - 1);
    if (id < t->n && t->m[id] != NULL)
        return mct_err_set(e, MCT_E_PROTO, "compact record: method %u is defined twice", id);
    m = calloc(1, sizeof *m);
    if (m == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
    if (get_str(r, &m->cls, &cap_cls, 1, "the method's class", e) < 0 ||
        get_str(r, &m->name, &cap_name, 1, "the method's name", e) < 0 ||
        get_str(r, &m->desc, &cap_desc, 1, "the method's descriptor", e) < 0)
        goto fail;
    if (r->p != r->end) {
        mct_err_set(e, MCT_E_PROTO, "compact record: %zu bytes after a definition", (size_t)(r->end - r->p));
        goto fail;
    }
    if (id >= t->n) {
        size_t n = t->n ? t->n : 64;
        struct crec_method **p;

        while (id >= n)
            n *= 2;
        p = realloc(t->m, n * sizeof *p);
        if (p == NULL)
            goto nomem;
        memset(p + t->n, 0, (n - t->n) * sizeof *p);
        t->m = p;
        t->n = n;
    }
    if (method_keys(m) < 0)
        goto nomem;
    t->m[id] = m;
    return CREC_DEF;
nomem:
    mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
fail:
    method_free(m);
    return -1;
}

static int decode_node(const crec_tab *t, struct rd *r, struct crec_node *nd, size_t i, mct_err *e)
{
    nd->method = (uint32_t)get_be(r, 4);
    nd->flags = (unsigned)get_be(r, 1);
    nd->n_children = (uint32_t)get_be(r, 4);
    if (nd->method >= t->n || t->m[nd->method] == NULL)
        return mct_err_set(e, MCT_E_PROTO, "compact record: node %zu names method %u, which was never defined", i,
                           nd->method);
    if (nd->flags & ~CREC_N_TRUNCATED)
        return mct_err_set(e, MCT_E_PROTO, "compact record: node %zu has unknown flags 0x%x", i, nd->flags);
    if (get_num(r, &nd->calls, "calls", e) < 0 || get_num(r, &nd->total_ns, "total_ns", e) < 0 ||
        get_num(r, &nd->self_ns, "self_ns", e) < 0 || get_num(r, &nd->min_ns, "min_ns", e) < 0 ||
        get_num(r, &nd->max_ns, "max_ns", e) < 0 || get_num(r, &nd->throws, "throws", e) < 0)
        return -1;
    return 0;
}

static int decode_call(const crec_tab *t, crec_call *c, struct rd *r, mct_err *e)
{
    uint32_t left[PROTO_MAX_DEPTH]; /* children still to come, per open node */
    uint64_t tid;
    uint32_t n;
    int depth = 0;
    size_t i;

    if (need(r, CALL_FIXED, "call", e) < 0)
        return -1;
    c->flags = (unsigned)get_be(r, 1);
    if (c->flags & ~CREC_F_KNOWN)
        return mct_err_set(e, MCT_E_PROTO, "compact record: unknown call flags 0x%x", c->flags);
    if (get_num(r, &c->seq, "seq", e) < 0 || get_num(r, &tid, "thread id", e) < 0 ||
        get_num(r, &c->start_ns, "start_ns", e) < 0)
        return -1;
    if (c->seq == 0)
        return mct_err_set(e, MCT_E_PROTO, "compact record: seq 0 (they begin at 1)");
    c->thread_id = (int64_t)tid;
    if (get_str(r, &c->thread_name, &c->cap_name, 0, "thread name", e) < 0 ||
        get_str(r, &c->exception, &c->cap_exc, 0, "exception", e) < 0)
        return -1;
    if (need(r, 4, "node count", e) < 0)
        return -1;
    n = (uint32_t)get_be(r, 4);
    if (n == 0 || (size_t)(r->end - r->p) / CREC_NODE_BYTES < n)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %u nodes do not fit the %zu bytes left", n,
                           (size_t)(r->end - r->p));
    if (n > c->cap_nodes) {
        struct crec_node *p = realloc(c->nodes, n * sizeof *p);

        if (p == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a compact record");
        c->nodes = p;
        c->cap_nodes = n;
    }
    for (i = 0; i < n; i++) {
        struct crec_node *nd = &c->nodes[i];

        if (i > 0 && depth == 0)
            return mct_err_set(e, MCT_E_PROTO, "compact record: %zu nodes after the root's tree", (size_t)n - i);
        if (decode_node(t, r, nd, i, e) < 0)
            return -1;
        if (depth > 0)
            left[depth - 1]--;
        if (nd->n_children > 0) {
            if (depth + 1 >= PROTO_MAX_DEPTH)
                return mct_err_set(e, MCT_E_PROTO, "compact record: the tree nests deeper than %d",
                                   PROTO_MAX_DEPTH);
            left[depth++] = nd->n_children;
        }
        while (depth > 0 && left[depth - 1] == 0)
            depth--;
    }
    if (depth > 0)
        return mct_err_set(e, MCT_E_PROTO, "compact record: the tree ends with %u children missing",
                           left[depth - 1]);
    if (r->p != r->end)
        return mct_err_set(e, MCT_E_PROTO, "compact record: %zu bytes after a call", (size_t)(r->end - r->p));
    c->n_nodes = n;
    if (c->exception[0] == '\0') {
        free(c->exception);
        c->exception = NULL;
        c->cap_exc = 0;
    }
    return CREC_CALL;
}

int crec_decode(crec_tab *t, crec_call *c, const unsigned char *p, size_t n, mct_err *e)
{
    struct rd r = {p + 1, p + n};

    if (n == 0)
        return mct_err_set(e, MCT_E_PROTO, "compact record: empty");
    switch (p[0]) {
    case CREC_DEF: return decode_def(t, &r, e);
    case CREC_CALL: return decode_call(t, c, &r, e);
    default: return mct_err_set(e, MCT_E_PROTO, "compact record: unknown type 0x%02x", p[0]);
    }
}

/* ---- rendering ------------------------------------------------------------------ */

/* Writes the literal s at w; the end. */
#define LIT(w, s) (memcpy((w), (s), sizeof(s) - 1), (w) + sizeof(s) - 1)

/* The most a node's text holds besides its names and children. */
#define NODE_TEXT_MAX 256

/* Node i and its subtree; the index after it, or 0 when out of memory. */
static size_t node_line(crec_text *x, const crec_tab *t, const crec_call *c, size_t i)
{
    const struct crec_node *nd = &c->nodes[i];
    const struct crec_method *m = t->m[nd->method];
    size_t j = i + 1;
    uint32_t k;
    char *w;

    if (text_room(x, m->keys_len + NODE_TEXT_MAX) < 0)
        return 0;
    w = x->p + x->len;
    *w++ = '{';
    memcpy(w, m->keys, m->keys_len);
    w += m->keys_len;
    w = dec(LIT(w, ",\"calls\":"), nd->calls);
    w = dec(LIT(w, ",\"total_ns\":"), nd->total_ns);
    w = dec(LIT(w, ",\"self_ns\":"), nd->self_ns);
    w = dec(LIT(w, ",\"min_ns\":"), nd->min_ns);
    w = dec(LIT(w, ",\"max_ns\":"), nd->max_ns);
    w = dec(LIT(w, ",\"throws\":"), nd->throws);
    if (nd->flags & CREC_N_TRUNCATED)
        w = LIT(w, ",\"truncated\":true");
    w = LIT(w, ",\"children\":[");
    x->len = (size_t)(w - x->p);
    for (k = 0; k < nd->n_children; k++) {
        if (k > 0 && PUT_LIT(x, ",") < 0)
            return 0;
        j = node_line(x, t, c, j);
        if (j == 0)
            return 0;
    }
    if (PUT_LIT(x, "]") < 0)
        return 0;
    if (i == 0 && c->exception != NULL && (PUT_LIT(x, ",\"exception\":") < 0 || crec_text_jstr(x, c->exception) < 0))
        return 0;
    return PUT_LIT(x, "}") < 0 ? 0 : j;
}

int crec_json_line(crec_text *x, const crec_tab *t, const crec_call *c)
{
    if (PUT_LIT(x, "{\"type\":\"call\",\"seq\":") < 0 || text_u64(x, c->seq) < 0 ||
        PUT_LIT(x, ",\"thread\":{\"id\":") < 0 || text_u64(x, (uint64_t)c->thread_id) < 0 || PUT_LIT(x, ",\"name\":") < 0 ||
        crec_text_jstr(x, c->thread_name) < 0 || PUT_LIT(x, "},\"start_ns\":") < 0 ||
        text_u64(x, c->start_ns) < 0 || PUT_LIT(x, ",\"root\":") < 0 || node_line(x, t, c, 0) == 0)
        return -1;
    if ((c->flags & CREC_F_WARMUP) && PUT_LIT(x, ",\"warmup\":true") < 0)
        return -1;
    return PUT_LIT(x, "}\n");
}

/* Node *i and its subtree as an object; *i moves past it. NULL: out of memory. */
static json_t *node_json(const crec_tab *t, const crec_call *c, size_t *i)
{
    const struct crec_node *nd = &c->nodes[*i];
    const struct crec_method *m = t->m[nd->method];
    int root = *i == 0;
    json_t *kids = json_array(), *o;
    uint32_t k;

    (*i)++;
    o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "class", m->cls, "method", m->name, "desc",
                  m->desc, "calls", (json_int_t)nd->calls, "total_ns", (json_int_t)nd->total_ns, "self_ns",
                  (json_int_t)nd->self_ns, "min_ns", (json_int_t)nd->min_ns, "max_ns", (json_int_t)nd->max_ns,
                  "throws", (json_int_t)nd->throws);
    if (o == NULL || kids == NULL)
        goto fail;
    if ((nd->flags & CREC_N_TRUNCATED) && json_object_set_new(o, "truncated", json_true()) < 0)
        goto fail;
    for (k = 0; k < nd->n_children; k++) {
        json_t *kid = node_json(t, c, i);

        if (kid == NULL || json_array_append_new(kids, kid) < 0)
            goto fail;
    }
    if (json_object_set_new(o, "children", kids) < 0) {
        kids = NULL;
        goto fail;
    }
    kids = NULL;
    if (root && c->exception != NULL && json_object_set_new(o, "exception", json_string(c->exception)) < 0)
        goto fail;
    return o;
fail:
    json_decref(kids);
    json_decref(o);
    return NULL;
}

json_t *crec_call_json(const crec_tab *t, const crec_call *c)
{
    size_t i = 0;
    json_t *root = node_json(t, c, &i), *call;

    if (root == NULL)
        return NULL;
    call = json_pack("{s:s, s:I, s:{s:I, s:s}, s:I, s:o}", "type", "call", "seq", (json_int_t)c->seq, "thread",
                     "id", (json_int_t)c->thread_id, "name", c->thread_name, "start_ns", (json_int_t)c->start_ns,
                     "root", root);
    if (call != NULL && (c->flags & CREC_F_WARMUP) && json_object_set_new(call, "warmup", json_true()) < 0) {
        json_decref(call);
        return NULL;
    }
    return call;
}
