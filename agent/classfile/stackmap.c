/* stackmap.c — see stackmap.h. The simulator follows the type-checking
 * verifier's rules (JVMS §4.10.1.9) for the state it tracks; it never
 * merges, since a writer only steps linearly from a frame. */
#include "stackmap.h"

#include <stdlib.h>
#include <string.h>

#include "kit.h"

struct name {
    size_t off;        /* in names.data */
    uint32_t len;
};

struct sm_ctx {
    const cf_class *c;
    mct_buf names;     /* NUL-terminated names, back to back */
    struct name *tab;
    size_t n, cap;
    kit_table ids;     /* id + 1 by the hash of the name */
    mct_buf scratch;   /* building array descriptors */
    uint32_t this_id;  /* the class's own name */
};

/* --- names --------------------------------------------------------------------- */

int sm_intern(sm_ctx *x, const char *s, size_t len, uint32_t *id, mct_err *err)
{
    uint64_t h = kit_hash(s, len, 0);
    kit_cursor cur;
    uintptr_t v;

    for (v = kit_table_first(&x->ids, h, &cur); v != 0; v = kit_table_next(&x->ids, &cur))
        if (x->tab[v - 1].len == len && memcmp(x->names.data + x->tab[v - 1].off, s, len) == 0) {
            *id = (uint32_t)(v - 1);
            return 0;
        }
    if (buf_grow(&x->tab, &x->cap, x->n, sizeof *x->tab, 64) < 0 || kit_table_reserve(&x->ids, x->n + 1) < 0)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory interning a class name");
    if (x->names.data != NULL && s >= (const char *)x->names.data &&
        s < (const char *)x->names.data + x->names.len) {
        /* a part of a name already interned: keep it valid across the growth */
        size_t off = (size_t)(s - (const char *)x->names.data);

        if (buf_reserve(&x->names, len + 1) < 0)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory interning a class name");
        s = (const char *)x->names.data + off;
    }
    x->tab[x->n].off = x->names.len;
    x->tab[x->n].len = (uint32_t)len;
    buf_bytes(&x->names, s, len);
    buf_u1(&x->names, 0);
    if (buf_failed(&x->names))
        return mct_err_set(err, MCT_E_NOMEM, "out of memory interning a class name");
    kit_table_add(&x->ids, h, x->n + 1); /* cannot fail: room reserved */
    *id = (uint32_t)x->n++;
    return 0;
}

const char *sm_name(const sm_ctx *x, uint32_t id, size_t *len)
{
    if (len)
        *len = x->tab[id].len;
    return (const char *)x->names.data + x->tab[id].off;
}

sm_ctx *sm_new(const cf_class *c, mct_err *err)
{
    sm_ctx *x = calloc(1, sizeof *x);

    if (x == NULL) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory");
        return NULL;
    }
    x->c = c;
    buf_init(&x->names);
    buf_init(&x->scratch);
    x->cap = 64;
    x->tab = malloc(x->cap * sizeof *x->tab);
    if (x->tab == NULL) {
        sm_free(x);
        mct_err_set(err, MCT_E_NOMEM, "out of memory");
        return NULL;
    }
    if (sm_intern(x, c->name, strlen(c->name), &x->this_id, err) < 0) {
        sm_free(x);
        return NULL;
    }
    return x;
}

void sm_free(sm_ctx *x)
{
    if (x == NULL)
        return;
    buf_free(&x->names);
    buf_free(&x->scratch);
    free(x->tab);
    kit_table_free(&x->ids);
    free(x);
}

/* --- frames ---------------------------------------------------------------------- */

void sm_list_init(sm_list *l, uint16_t max_locals, uint16_t max_stack)
{
    memset(l, 0, sizeof *l);
    l->max_locals = max_locals;
    l->max_stack = max_stack;
}

void sm_list_free(sm_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->f[i].locals);
    free(l->f);
    memset(l, 0, sizeof *l);
}

sm_frame *sm_list_add(sm_list *l, uint32_t pc)
{
    sm_frame *f;
    size_t slots = (size_t)l->max_locals + l->max_stack;

    if (buf_grow(&l->f, &l->cap, l->n, sizeof *l->f, 16) < 0)
        return NULL;
    f = &l->f[l->n];
    memset(f, 0, sizeof *f);
    f->locals = calloc(slots ? slots : 1, sizeof *f->locals);
    if (f->locals == NULL)
        return NULL;
    f->stack = f->locals + l->max_locals;
    f->pc = pc;
    f->max_locals = l->max_locals;
    f->max_stack = l->max_stack;
    l->n++;
    return f;
}

void sm_copy(sm_frame *dst, const sm_frame *src)
{
    dst->pc = src->pc;
    dst->nlocals = src->nlocals;
    dst->nstack = src->nstack;
    dst->this_uninit = src->this_uninit;
    memcpy(dst->locals, src->locals, (size_t)src->max_locals * sizeof *src->locals);
    memcpy(dst->stack, src->stack, (size_t)src->nstack * sizeof *src->stack);
}

int sm_has_uninit_this(const sm_frame *st)
{
    uint16_t i;

    for (i = 0; i < st->nlocals; i++)
        if (st->locals[i].tag == SM_UNINIT_THIS)
            return 1;
    return 0;
}

static int is_cat2(uint8_t tag)
{
    return tag == SM_LONG || tag == SM_DOUBLE;
}

static int is_half(uint8_t tag)
{
    return tag == SM_LONG2 || tag == SM_DOUBLE2;
}

static int is_ref(uint8_t tag)
{
    return tag == SM_NULL || tag == SM_OBJECT || tag == SM_UNINIT || tag == SM_UNINIT_THIS;
}

static sm_type mk(uint8_t tag, uint32_t v)
{
    sm_type t = {.tag = tag, .v = v};

    return t;
}

/* The type of a field descriptor at *p (advanced past it); Boolean, byte,
 * char and short are Integer to the verifier. */
static int desc_type(sm_ctx *x, const char **p, sm_type *t, mct_err *err)
{
    const char *s = *p, *e = s;

    if (cf_field_desc_skip(&e) < 0)
        return mct_err_set(err, MCT_E_CLASSFILE, "bad descriptor \"%s\"", s);
    *p = e;
    switch (*s) {
    case 'B': case 'C': case 'I': case 'S': case 'Z':
        *t = mk(SM_INTEGER, 0);
        return 0;
    case 'F':
        *t = mk(SM_FLOAT, 0);
        return 0;
    case 'J':
        *t = mk(SM_LONG, 0);
        return 0;
    case 'D':
        *t = mk(SM_DOUBLE, 0);
        return 0;
    case 'L':
        t->tag = SM_OBJECT;
        return sm_intern(x, s + 1, (size_t)(e - s - 2), &t->v, err);
    default: /* '[' */
        t->tag = SM_OBJECT;
        return sm_intern(x, s, (size_t)(e - s), &t->v, err);
    }
}

/* Puts a value of type t into locals at i (two slots for category 2), with
 * the verifier's invalidation of a long/double it overwrites half of. */
static int set_local(sm_frame *f, uint32_t i, sm_type t, mct_err *err)
{
    uint32_t w = is_cat2(t.tag) ? 2 : 1, k;

    if (i + w > f->max_locals)
        return mct_err_set(err, MCT_E_CLASSFILE, "local %u out of range (max_locals %u)", i, f->max_locals);
    for (k = i; k < i + w; k++) {
        if (is_cat2(f->locals[k].tag) && k + 1 < f->max_locals)
            f->locals[k + 1] = mk(SM_TOP, 0);
        if (is_half(f->locals[k].tag) && k > 0)
            f->locals[k - 1] = mk(SM_TOP, 0);
    }
    f->locals[i] = t;
    if (w == 2)
        f->locals[i + 1] = mk(t.tag == SM_LONG ? SM_LONG2 : SM_DOUBLE2, 0);
    if (i + w > f->nlocals)
        f->nlocals = (uint16_t)(i + w);
    return 0;
}

static int push(sm_frame *f, sm_type t, mct_err *err)
{
    uint32_t w = is_cat2(t.tag) ? 2 : 1;

    if (f->nstack + w > f->max_stack)
        return mct_err_set(err, MCT_E_CLASSFILE, "stack overflow at pc %u (max_stack %u)", f->pc, f->max_stack);
    f->stack[f->nstack++] = t;
    if (w == 2)
        f->stack[f->nstack++] = mk(t.tag == SM_LONG ? SM_LONG2 : SM_DOUBLE2, 0);
    return 0;
}

/* Pops a value of the given category (1 or 2) into *t (may be NULL). */
static int pop_cat(sm_frame *f, int cat, sm_type *t, mct_err *err)
{
    if (f->nstack < cat)
        return mct_err_set(err, MCT_E_CLASSFILE, "stack underflow at pc %u", f->pc);
    if (cat == 1 ? is_half(f->stack[f->nstack - 1].tag)
                 : !is_half(f->stack[f->nstack - 1].tag) || !is_cat2(f->stack[f->nstack - 2].tag))
        return mct_err_set(err, MCT_E_CLASSFILE, "wrong value category on the stack at pc %u", f->pc);
    f->nstack = (uint16_t)(f->nstack - cat);
    if (t)
        *t = f->stack[f->nstack];
    return 0;
}

/* Pops a value of type t's category. */
static int pop_as(sm_frame *f, sm_type t, mct_err *err)
{
    return pop_cat(f, is_cat2(t.tag) ? 2 : 1, NULL, err);
}

/* Pops the values of a method descriptor's arguments. */
static int pop_args(sm_ctx *x, sm_frame *f, const char *desc, mct_err *err)
{
    int n = cf_desc_arg_slots(desc);

    (void)x;
    if (n < 0 || f->nstack < n)
        return mct_err_set(err, MCT_E_CLASSFILE, "stack underflow at pc %u", f->pc);
    if (n > 0 && f->nstack > n && is_half(f->stack[f->nstack - n].tag))
        return mct_err_set(err, MCT_E_CLASSFILE, "wrong value category on the stack at pc %u", f->pc);
    f->nstack = (uint16_t)(f->nstack - n);
    return 0;
}

/* Pushes the return type of a method descriptor, if not void. */
static int push_ret(sm_ctx *x, sm_frame *f, const char *desc, mct_err *err)
{
    const char *r = cf_desc_return(desc);
    sm_type t;

    if (*r == 'V')
        return 0;
    if (desc_type(x, &r, &t, err) < 0)
        return -1;
    return push(f, t, err);
}

/* The cut between the top `depth` slots and the rest does not split a
 * long or double. */
static int cut_ok(const sm_frame *f, uint32_t depth)
{
    return depth <= f->nstack && (depth == f->nstack || !is_half(f->stack[f->nstack - depth].tag));
}

int sm_initial(sm_ctx *x, const cf_member *m, sm_frame *f, mct_err *err)
{
    const char *p = m->desc + 1;
    uint32_t i = 0;

    f->pc = 0;
    f->nlocals = 0;
    f->nstack = 0;
    f->this_uninit = 0;
    memset(f->locals, 0, (size_t)f->max_locals * sizeof *f->locals);
    if (!(m->access & CF_ACC_STATIC)) {
        sm_type t = mk(SM_OBJECT, x->this_id);

        if (strcmp(m->name, "<init>") == 0 && strcmp(x->c->name, "java/lang/Object") != 0) {
            t = mk(SM_UNINIT_THIS, 0);
            f->this_uninit = 1;
        }
        if (set_local(f, i++, t, err) < 0)
            return -1;
    }
    while (*p != ')') {
        sm_type t;

        if (desc_type(x, &p, &t, err) < 0 || set_local(f, i, t, err) < 0)
            return -1;
        i += is_cat2(t.tag) ? 2 : 1;
    }
    return 0;
}

/* --- decoding ------------------------------------------------------------------------ */

struct rd {
    const uint8_t *p;
    uint32_t len, pos;
};

static int rd_u1(struct rd *r, uint8_t *v)
{
    if (r->pos >= r->len)
        return -1;
    *v = r->p[r->pos++];
    return 0;
}

static int rd_u2(struct rd *r, uint16_t *v)
{
    if (r->len - r->pos < 2)
        return -1;
    *v = buf_get_u2(r->p + r->pos);
    r->pos += 2;
    return 0;
}

/* Reads one verification_type_info. */
static int rd_type(sm_ctx *x, struct rd *r, sm_type *t, mct_err *err)
{
    uint8_t tag;
    uint16_t v = 0;

    if (rd_u1(r, &tag) < 0)
        return mct_err_set(err, MCT_E_CLASSFILE, "truncated StackMapTable");
    if (tag > SM_UNINIT)
        return mct_err_set(err, MCT_E_CLASSFILE, "StackMapTable has a verification type tag %u", tag);
    if ((tag == SM_OBJECT || tag == SM_UNINIT) && rd_u2(r, &v) < 0)
        return mct_err_set(err, MCT_E_CLASSFILE, "truncated StackMapTable");
    if (tag == SM_OBJECT) {
        const char *name = cf_class_name(x->c, v);

        if (name == NULL)
            return mct_err_set(err, MCT_E_CLASSFILE, "StackMapTable refers to constant #%u, not a Class", v);
        t->tag = SM_OBJECT;
        return sm_intern(x, name, strlen(name), &t->v, err);
    }
    *t = mk(tag, v);
    return 0;
}

/* Reads n types into slots [at, ...) of arr (capacity cap); *end is set to
 * the slot after the last. */
static int rd_types(sm_ctx *x, struct rd *r, uint32_t n, sm_type *arr, uint32_t at, uint32_t cap,
                    uint32_t *end, mct_err *err)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        sm_type t;

        if (rd_type(x, r, &t, err) < 0)
            return -1;
        if (at + (is_cat2(t.tag) ? 2u : 1u) > cap)
            return mct_err_set(err, MCT_E_CLASSFILE, "StackMapTable frame exceeds max_locals or max_stack");
        arr[at++] = t;
        if (is_cat2(t.tag))
            arr[at++] = mk(t.tag == SM_LONG ? SM_LONG2 : SM_DOUBLE2, 0);
    }
    *end = at;
    return 0;
}

int sm_decode(sm_ctx *x, const cf_member *m, const cf_attr *smt, sm_list *out, mct_err *err)
{
    const cf_code *code = m->code;
    struct rd r;
    uint16_t n, i;
    sm_frame *f;
    int64_t pc = -1;

    f = sm_list_add(out, 0);
    if (f == NULL)
        return mct_err_set(err, MCT_E_NOMEM, "out of memory decoding a StackMapTable");
    if (sm_initial(x, m, f, err) < 0)
        return -1;
    if (smt == NULL)
        return 0;
    r.p = cf_attr_info(x->c, smt);
    r.len = smt->len;
    r.pos = 0;
    if (rd_u2(&r, &n) < 0)
        return mct_err_set(err, MCT_E_CLASSFILE, "truncated StackMapTable");
    for (i = 0; i < n; i++) {
        uint8_t type;
        uint16_t delta, k;
        uint32_t end;
        sm_frame *prev;

        if (rd_u1(&r, &type) < 0)
            return mct_err_set(err, MCT_E_CLASSFILE, "truncated StackMapTable");
        if (type >= 128 && type < 247)
            return mct_err_set(err, MCT_E_CLASSFILE, "StackMapTable has a reserved frame type %u", type);
        if (type < 128)
            delta = type < 64 ? type : (uint16_t)(type - 64);
        else if (rd_u2(&r, &delta) < 0)
            return mct_err_set(err, MCT_E_CLASSFILE, "truncated StackMapTable");
        pc = pc < 0 ? delta : pc + delta + 1;
        if (pc >= code->code_len)
            return mct_err_set(err, MCT_E_CLASSFILE, "StackMapTable frame at offset %lld is past the code",
                               (long long)pc);
        if (sm_list_add(out, (uint32_t)pc) == NULL)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory decoding a StackMapTable");
        prev = &out->f[out->n - 2];
        f = &out->f[out->n - 1];
        sm_copy(f, prev);
        f->pc = (uint32_t)pc;
        f->nstack = 0;
        if (type < 64 || type == 251) {
            /* same_frame */
        } else if (type < 128 || type == 247) {
            if (rd_types(x, &r, 1, f->stack, 0, f->max_stack, &end, err) < 0)
                return -1;
            f->nstack = (uint16_t)end;
        } else if (type < 251) {
            for (k = 0; k < 251 - type; k++) {
                if (f->nlocals == 0)
                    return mct_err_set(err, MCT_E_CLASSFILE, "StackMapTable chops more locals than there are");
                f->nlocals -= is_half(f->locals[f->nlocals - 1].tag) && f->nlocals >= 2 ? 2 : 1;
            }
            memset(f->locals + f->nlocals, 0, (size_t)(f->max_locals - f->nlocals) * sizeof *f->locals);
        } else if (type < 255) {
            if (rd_types(x, &r, type - 251u, f->locals, f->nlocals, f->max_locals, &end, err) < 0)
                return -1;
            f->nlocals = (uint16_t)end;
        } else {
            uint16_t nl, ns;

            memset(f->locals, 0, (size_t)f->max_locals * sizeof *f->locals);
            if (rd_u2(&r, &nl) < 0 || rd_types(x, &r, nl, f->locals, 0, f->max_locals, &end, err) < 0)
                return mct_err_set(err, MCT_E_CLASSFILE, "truncated or oversized StackMapTable full_frame");
            f->nlocals = (uint16_t)end;
            if (rd_u2(&r, &ns) < 0 || rd_types(x, &r, ns, f->stack, 0, f->max_stack, &end, err) < 0)
                return mct_err_set(err, MCT_E_CLASSFILE, "truncated or oversized StackMapTable full_frame");
            f->nstack = (uint16_t)end;
        }
        f->this_uninit = (uint8_t)sm_has_uninit_this(f);
    }
    if (r.pos != r.len)
        return mct_err_set(err, MCT_E_CLASSFILE, "StackMapTable has trailing bytes");
    return 0;
}

/* --- encoding ------------------------------------------------------------------------- */

static int same_type(sm_type a, sm_type b)
{
    return a.tag == b.tag && a.v == b.v;
}

/* Counts the encoded items (category 2 counted once) in slots [from, to). */
static uint32_t items(const sm_type *t, uint32_t from, uint32_t to)
{
    uint32_t n = 0, i;

    for (i = from; i < to; i++)
        if (!is_half(t[i].tag))
            n++;
    return n;
}

static int put_type(sm_ctx *x, sm_type t, cpool *cp, sm_pc_map map, void *mctx, mct_buf *b, mct_err *err)
{
    buf_u1(b, t.tag);
    if (t.tag == SM_OBJECT) {
        size_t len;
        const char *name = sm_name(x, t.v, &len);
        int k = cpool_class(cp, name, len, err);

        if (k < 0)
            return -1;
        buf_u2(b, (uint16_t)k);
    } else if (t.tag == SM_UNINIT) {
        buf_u2(b, (uint16_t)map(mctx, t.v));
    }
    return 0;
}

static int put_types(sm_ctx *x, const sm_type *t, uint32_t from, uint32_t to, cpool *cp, sm_pc_map map,
                     void *mctx, mct_buf *b, mct_err *err)
{
    uint32_t i;

    for (i = from; i < to; i++)
        if (!is_half(t[i].tag) && put_type(x, t[i], cp, map, mctx, b, err) < 0)
            return -1;
    return 0;
}

static int encode_frame(sm_ctx *x, const sm_frame *prev, const sm_frame *f, uint32_t delta, cpool *cp,
                        sm_pc_map map, void *mctx, mct_buf *b, mct_err *err)
{
    uint32_t common = prev->nlocals < f->nlocals ? prev->nlocals : f->nlocals, i;
    int prefix = 1;

    for (i = 0; i < common && prefix; i++)
        prefix = same_type(prev->locals[i], f->locals[i]);
    if (prefix && prev->nlocals == f->nlocals) {
        if (f->nstack == 0) {
            if (delta < 64) {
                buf_u1(b, (uint8_t)delta);
            } else {
                buf_u1(b, 251);
                buf_u2(b, (uint16_t)delta);
            }
            return 0;
        }
        if (items(f->stack, 0, f->nstack) == 1) {
            if (delta < 64) {
                buf_u1(b, (uint8_t)(64 + delta));
            } else {
                buf_u1(b, 247);
                buf_u2(b, (uint16_t)delta);
            }
            return put_types(x, f->stack, 0, f->nstack, cp, map, mctx, b, err);
        }
    }
    if (prefix && f->nstack == 0 && f->nlocals > prev->nlocals) {
        uint32_t k = items(f->locals, prev->nlocals, f->nlocals);

        if (k >= 1 && k <= 3) {
            buf_u1(b, (uint8_t)(251 + k));
            buf_u2(b, (uint16_t)delta);
            return put_types(x, f->locals, prev->nlocals, f->nlocals, cp, map, mctx, b, err);
        }
    }
    if (prefix && f->nstack == 0 && f->nlocals < prev->nlocals) {
        uint32_t k = items(prev->locals, f->nlocals, prev->nlocals);

        if (k >= 1 && k <= 3) {
            buf_u1(b, (uint8_t)(251 - k));
            buf_u2(b, (uint16_t)delta);
            return 0;
        }
    }
    buf_u1(b, 255);
    buf_u2(b, (uint16_t)delta);
    buf_u2(b, (uint16_t)items(f->locals, 0, f->nlocals));
    if (put_types(x, f->locals, 0, f->nlocals, cp, map, mctx, b, err) < 0)
        return -1;
    buf_u2(b, (uint16_t)items(f->stack, 0, f->nstack));
    return put_types(x, f->stack, 0, f->nstack, cp, map, mctx, b, err);
}

int sm_encode(sm_ctx *x, const sm_frame *init, const sm_frame *const *frames, size_t n,
              cpool *cp, sm_pc_map map, void *map_ctx, mct_buf *b, mct_err *err)
{
    const sm_frame *prev = init;
    size_t i;

    if (n > 65535)
        return mct_err_set(err, MCT_E_TOOBIG, "more than 65535 StackMapTable frames");
    buf_u2(b, (uint16_t)n);
    for (i = 0; i < n; i++) {
        uint32_t delta = i == 0 ? frames[i]->pc : frames[i]->pc - prev->pc - 1;

        if (i > 0 && frames[i]->pc <= prev->pc)
            return mct_err_set(err, MCT_E_INTERNAL, "StackMapTable frames out of order at %u", frames[i]->pc);
        if (encode_frame(x, prev, frames[i], delta, cp, map, map_ctx, b, err) < 0)
            return -1;
        prev = frames[i];
    }
    return buf_failed(b) ? mct_err_set(err, MCT_E_NOMEM, "out of memory writing a StackMapTable") : 0;
}

/* --- the simulator ---------------------------------------------------------------------- */

static int local_type(const sm_frame *f, uint32_t i, int cat, sm_type *t, mct_err *err)
{
    if (i + (uint32_t)cat > f->max_locals)
        return mct_err_set(err, MCT_E_CLASSFILE, "local %u out of range at pc %u", i, f->pc);
    *t = f->locals[i];
    return 0;
}

/* The type pushed by ldc/ldc_w/ldc2_w of constant idx. */
static int ldc_type(sm_ctx *x, uint16_t idx, int wide2, sm_type *t, mct_err *err)
{
    const cf_class *c = x->c;
    const char *cls;
    uint8_t tag;

    if (idx == 0 || idx >= c->cp_count)
        return mct_err_set(err, MCT_E_CLASSFILE, "ldc of constant #%u out of range", idx);
    tag = c->cp[idx].tag;
    switch (tag) {
    case CF_INTEGER: *t = mk(SM_INTEGER, 0); break;
    case CF_FLOAT: *t = mk(SM_FLOAT, 0); break;
    case CF_LONG: *t = mk(SM_LONG, 0); break;
    case CF_DOUBLE: *t = mk(SM_DOUBLE, 0); break;
    case CF_STRING: cls = "java/lang/String"; goto object;
    case CF_CLASS: cls = "java/lang/Class"; goto object;
    case CF_METHOD_TYPE: cls = "java/lang/invoke/MethodType"; goto object;
    case CF_METHOD_HANDLE: cls = "java/lang/invoke/MethodHandle"; goto object;
    case CF_DYNAMIC: {
        const char *d = cf_utf8(c, c->cp[c->cp[idx].b].b);

        if (d == NULL || desc_type(x, &d, t, err) < 0)
            return mct_err_set(err, MCT_E_CLASSFILE, "ldc of a Dynamic constant with a bad type");
        break;
    }
    default:
        return mct_err_set(err, MCT_E_CLASSFILE, "ldc of constant #%u that is not loadable", idx);
    }
    if (is_cat2(t->tag) != wide2)
        return mct_err_set(err, MCT_E_CLASSFILE, "ldc of constant #%u of the wrong size", idx);
    return 0;
object:
    if (wide2)
        return mct_err_set(err, MCT_E_CLASSFILE, "ldc2_w of constant #%u that is not a long or double", idx);
    t->tag = SM_OBJECT;
    return sm_intern(x, cls, strlen(cls), &t->v, err);
}

/* The class type of the Class constant idx (a name or array descriptor). */
static int class_type(sm_ctx *x, uint16_t idx, sm_type *t, mct_err *err)
{
    const char *name = cf_class_name(x->c, idx);

    if (name == NULL)
        return mct_err_set(err, MCT_E_CLASSFILE, "constant #%u is not a Class", idx);
    t->tag = SM_OBJECT;
    return sm_intern(x, name, strlen(name), &t->v, err);
}

/* Replaces every `from` in locals and stack by `to` (object initialisation). */
static void replace_all(sm_frame *f, sm_type from, sm_type to)
{
    uint32_t i;

    for (i = 0; i < f->max_locals; i++)
        if (same_type(f->locals[i], from))
            f->locals[i] = to;
    for (i = 0; i < f->nstack; i++)
        if (same_type(f->stack[i], from))
            f->stack[i] = to;
}

static int step_invoke(sm_ctx *x, sm_frame *f, const uint8_t *code, uint32_t code_len, const bc_insn *in,
                       mct_err *err)
{
    cf_ref ref;
    const char *name, *desc;
    sm_type recv;
    int rc = 0;

    if (in->op == BC_INVOKEDYNAMIC) {
        const cf_bootstrap *bsm;

        if (cf_invoke_dynamic(x->c, in->index, &bsm, &name, &desc) < 0)
            return mct_err_set(err, MCT_E_CLASSFILE, "invokedynamic of constant #%u, not an InvokeDynamic", in->index);
        if (pop_args(x, f, desc, err) < 0)
            return -1;
        return push_ret(x, f, desc, err);
    }
    if (cf_member_ref(x->c, in->index, &ref) < 0 || ref.tag == CF_FIELDREF)
        return mct_err_set(err, MCT_E_CLASSFILE, "%s of constant #%u, not a method", bc_name(in->op), in->index);
    if (pop_args(x, f, ref.desc, err) < 0)
        return -1;
    if (in->op != BC_INVOKESTATIC) {
        if (pop_cat(f, 1, &recv, err) < 0)
            return -1;
        if (!is_ref(recv.tag))
            return mct_err_set(err, MCT_E_CLASSFILE, "%s on a non-reference at pc %u", bc_name(in->op), in->pc);
        if (in->op == BC_INVOKESPECIAL && strcmp(ref.name, "<init>") == 0) {
            sm_type to;

            if (recv.tag == SM_UNINIT_THIS) {
                to = mk(SM_OBJECT, x->this_id);
                replace_all(f, recv, to);
                f->this_uninit = 0;
                rc = 1;
            } else if (recv.tag == SM_UNINIT) {
                if (recv.v + 3 > code_len || code[recv.v] != BC_NEW ||
                    class_type(x, buf_get_u2(code + recv.v + 1), &to, err) < 0)
                    return mct_err_set(err, MCT_E_CLASSFILE, "Uninitialized(%u) at pc %u is not a new", recv.v, in->pc);
                replace_all(f, recv, to);
            } else {
                return mct_err_set(err, MCT_E_CLASSFILE, "<init> on an initialized object at pc %u", in->pc);
            }
        }
    }
    if (push_ret(x, f, ref.desc, err) < 0)
        return -1;
    return rc;
}

static int step_field(sm_ctx *x, sm_frame *f, const bc_insn *in, mct_err *err)
{
    cf_ref ref;
    const char *d;
    sm_type t;

    if (cf_member_ref(x->c, in->index, &ref) < 0 || ref.tag != CF_FIELDREF)
        return mct_err_set(err, MCT_E_CLASSFILE, "%s of constant #%u, not a field", bc_name(in->op), in->index);
    d = ref.desc;
    if (desc_type(x, &d, &t, err) < 0)
        return -1;
    switch (in->op) {
    case BC_GETSTATIC:
        return push(f, t, err);
    case BC_PUTSTATIC:
        return pop_as(f, t, err);
    case BC_GETFIELD:
        if (pop_cat(f, 1, NULL, err) < 0)
            return -1;
        return push(f, t, err);
    default: /* putfield */
        if (pop_as(f, t, err) < 0)
            return -1;
        return pop_cat(f, 1, NULL, err);
    }
}

/* Array element types of xaload/xastore, indexed by op - iaload. */
static const uint8_t array_elem[8] = {SM_INTEGER, SM_LONG, SM_FLOAT, SM_DOUBLE, SM_OBJECT,
                                      SM_INTEGER, SM_INTEGER, SM_INTEGER};

static int step_aaload(sm_ctx *x, sm_frame *f, mct_err *err)
{
    sm_type arr, t;
    const char *name, *p;
    size_t len;

    if (pop_cat(f, 1, NULL, err) < 0 || pop_cat(f, 1, &arr, err) < 0)
        return -1;
    if (arr.tag == SM_NULL)
        return push(f, arr, err);
    if (arr.tag != SM_OBJECT)
        return mct_err_set(err, MCT_E_CLASSFILE, "aaload on a non-array at pc %u", f->pc);
    name = sm_name(x, arr.v, &len);
    if (len < 2 || name[0] != '[' || (name[1] != '[' && name[1] != 'L'))
        return mct_err_set(err, MCT_E_CLASSFILE, "aaload on %s at pc %u", name, f->pc);
    p = name + 1;
    if (desc_type(x, &p, &t, err) < 0)
        return -1;
    return push(f, t, err);
}

/* anewarray: the array type of the Class constant idx. */
static int step_anewarray(sm_ctx *x, sm_frame *f, uint16_t idx, mct_err *err)
{
    const char *name = cf_class_name(x->c, idx);
    sm_type t;
    size_t len;

    if (name == NULL)
        return mct_err_set(err, MCT_E_CLASSFILE, "anewarray of constant #%u, not a Class", idx);
    if (pop_cat(f, 1, NULL, err) < 0)
        return -1;
    len = strlen(name);
    x->scratch.len = 0;
    buf_u1(&x->scratch, '[');
    if (name[0] == '[') {
        buf_bytes(&x->scratch, name, len);
    } else {
        buf_u1(&x->scratch, 'L');
        buf_bytes(&x->scratch, name, len);
        buf_u1(&x->scratch, ';');
    }
    if (buf_failed(&x->scratch))
        return mct_err_set(err, MCT_E_NOMEM, "out of memory");
    t.tag = SM_OBJECT;
    if (sm_intern(x, (const char *)x->scratch.data, x->scratch.len, &t.v, err) < 0)
        return -1;
    return push(f, t, err);
}

static int step_newarray(sm_ctx *x, sm_frame *f, int32_t atype, mct_err *err)
{
    static const char *const names[] = {"[Z", "[C", "[F", "[D", "[B", "[S", "[I", "[J"};
    sm_type t;

    if (atype < 4 || atype > 11)
        return mct_err_set(err, MCT_E_CLASSFILE, "newarray of type %d at pc %u", atype, f->pc);
    if (pop_cat(f, 1, NULL, err) < 0)
        return -1;
    t.tag = SM_OBJECT;
    if (sm_intern(x, names[atype - 4], 2, &t.v, err) < 0)
        return -1;
    return push(f, t, err);
}

/* dup and friends: the top `take` slots are copied below the top `under`
 * slots (dup: 1,1; dup_x1: 1,2; dup_x2: 1,3; dup2: 2,2; dup2_x1: 2,3;
 * dup2_x2: 2,4). */
static int dup_ops(sm_frame *f, uint32_t take, uint32_t under, mct_err *err)
{
    sm_type tmp[4];
    uint32_t i;

    if (!cut_ok(f, take) || !cut_ok(f, under) || f->nstack < under)
        return mct_err_set(err, MCT_E_CLASSFILE, "bad stack for a dup at pc %u", f->pc);
    if (f->nstack + take > f->max_stack)
        return mct_err_set(err, MCT_E_CLASSFILE, "stack overflow at pc %u", f->pc);
    memcpy(tmp, f->stack + f->nstack - under, under * sizeof *tmp);
    f->nstack = (uint16_t)(f->nstack - under);
    for (i = 0; i < take; i++)
        f->stack[f->nstack++] = tmp[under - take + i];
    for (i = 0; i < under; i++)
        f->stack[f->nstack++] = tmp[i];
    return 0;
}

static sm_type prim(char c)
{
    switch (c) {
    case 'J': return mk(SM_LONG, 0);
    case 'F': return mk(SM_FLOAT, 0);
    case 'D': return mk(SM_DOUBLE, 0);
    default: return mk(SM_INTEGER, 0);
    }
}

/* Pops values of the primitive types in pops (top first), pushes push
 * ('-' for nothing). */
static int arith(sm_frame *f, const char *pops, char res, mct_err *err)
{
    for (; *pops; pops++)
        if (pop_as(f, prim(*pops), err) < 0)
            return -1;
    return res == '-' ? 0 : push(f, prim(res), err);
}

int sm_step(sm_ctx *x, sm_frame *f, const uint8_t *code, uint32_t code_len, const bc_insn *in, mct_err *err)
{
    static const char typ[] = "IJFD";
    uint8_t op = in->op;
    sm_type t;

    f->pc = in->pc;
    if (op == BC_NOP)
        return 0;
    if (op == BC_ACONST_NULL)
        return push(f, mk(SM_NULL, 0), err);
    if (op <= 0x08 || op == BC_BIPUSH || op == BC_SIPUSH)
        return push(f, mk(SM_INTEGER, 0), err);
    if (op <= 0x0a)
        return push(f, mk(SM_LONG, 0), err);
    if (op <= 0x0d)
        return push(f, mk(SM_FLOAT, 0), err);
    if (op <= 0x0f)
        return push(f, mk(SM_DOUBLE, 0), err);
    if (op == BC_LDC || op == BC_LDC_W || op == BC_LDC2_W) {
        if (ldc_type(x, in->index, op == BC_LDC2_W, &t, err) < 0)
            return -1;
        return push(f, t, err);
    }
    if (op >= 0x15 && op <= 0x2d) { /* loads */
        uint32_t kind = op <= 0x19 ? op - 0x15u : (op - 0x1au) / 4;
        uint32_t idx = op <= 0x19 ? in->index : (op - 0x1au) % 4;

        if (kind == 4) {
            if (local_type(f, idx, 1, &t, err) < 0)
                return -1;
            if (!is_ref(t.tag))
                return mct_err_set(err, MCT_E_CLASSFILE, "aload of a non-reference local %u at pc %u", idx, in->pc);
            return push(f, t, err);
        }
        if (local_type(f, idx, kind == 1 || kind == 3 ? 2 : 1, &t, err) < 0)
            return -1;
        return push(f, prim(typ[kind]), err);
    }
    if (op >= 0x2e && op <= 0x35) { /* array loads */
        if (op == 0x32)
            return step_aaload(x, f, err);
        if (pop_cat(f, 1, NULL, err) < 0 || pop_cat(f, 1, NULL, err) < 0)
            return -1;
        return push(f, mk(array_elem[op - 0x2e], 0), err);
    }
    if (op >= 0x36 && op <= 0x4e) { /* stores */
        uint32_t kind = op <= 0x3a ? op - 0x36u : (op - 0x3bu) / 4;
        uint32_t idx = op <= 0x3a ? in->index : (op - 0x3bu) % 4;

        if (kind == 4) {
            if (pop_cat(f, 1, &t, err) < 0)
                return -1;
            if (!is_ref(t.tag))
                return mct_err_set(err, MCT_E_CLASSFILE, "astore of a non-reference at pc %u", in->pc);
        } else {
            t = prim(typ[kind]);
            if (pop_as(f, t, err) < 0)
                return -1;
        }
        return set_local(f, idx, t, err);
    }
    if (op >= 0x4f && op <= 0x56) { /* array stores */
        uint8_t e = array_elem[op - 0x4f];

        if (pop_cat(f, is_cat2(e) ? 2 : 1, NULL, err) < 0 || pop_cat(f, 1, NULL, err) < 0 ||
            pop_cat(f, 1, NULL, err) < 0)
            return -1;
        return 0;
    }
    switch (op) {
    case 0x57: /* pop */
        return pop_cat(f, 1, NULL, err);
    case 0x58: /* pop2 */
        if (f->nstack < 2 || !cut_ok(f, 2))
            return mct_err_set(err, MCT_E_CLASSFILE, "bad stack for pop2 at pc %u", in->pc);
        f->nstack -= 2;
        return 0;
    case 0x59: return dup_ops(f, 1, 1, err);
    case 0x5a: return dup_ops(f, 1, 2, err);
    case 0x5b: return dup_ops(f, 1, 3, err);
    case 0x5c: return dup_ops(f, 2, 2, err);
    case 0x5d: return dup_ops(f, 2, 3, err);
    case 0x5e: return dup_ops(f, 2, 4, err);
    case 0x5f: /* swap */
        if (f->nstack < 2 || !cut_ok(f, 1) || !cut_ok(f, 2))
            return mct_err_set(err, MCT_E_CLASSFILE, "bad stack for swap at pc %u", in->pc);
        t = f->stack[f->nstack - 1];
        f->stack[f->nstack - 1] = f->stack[f->nstack - 2];
        f->stack[f->nstack - 2] = t;
        return 0;
    default:
        break;
    }
    if (op >= 0x60 && op <= 0x73) { /* add, sub, mul, div, rem */
        char p[3] = {typ[(op - 0x60) % 4], typ[(op - 0x60) % 4], 0};

        return arith(f, p, p[0], err);
    }
    if (op >= 0x74 && op <= 0x77) { /* neg */
        char p[2] = {typ[op - 0x74], 0};

        return arith(f, p, p[0], err);
    }
    if (op >= 0x78 && op <= 0x7d) /* shifts */
        return (op & 1) ? arith(f, "IJ", 'J', err) : arith(f, "II", 'I', err);
    if (op >= 0x7e && op <= 0x83) /* and, or, xor */
        return (op & 1) ? arith(f, "JJ", 'J', err) : arith(f, "II", 'I', err);
    if (op == BC_IINC)
        return local_type(f, in->index, 1, &t, err) < 0 ? -1 : 0;
    if (op >= 0x85 && op <= 0x93) { /* conversions */
        static const char conv[][3] = {"IJ", "IF", "ID", "JI", "JF", "JD", "FI", "FJ", "FD",
                                       "DI", "DJ", "DF", "II", "II", "II"};
        char p[2] = {conv[op - 0x85][0], 0};

        return arith(f, p, conv[op - 0x85][1], err);
    }
    switch (op) {
    case 0x94: return arith(f, "JJ", 'I', err);                 /* lcmp */
    case 0x95: case 0x96: return arith(f, "FF", 'I', err);      /* fcmp */
    case 0x97: case 0x98: return arith(f, "DD", 'I', err);      /* dcmp */
    case BC_IFEQ: case BC_IFNE: case BC_IFLT: case BC_IFGE: case BC_IFGT: case BC_IFLE:
    case BC_TABLESWITCH: case BC_LOOKUPSWITCH:
        return arith(f, "I", '-', err);
    case BC_IF_ICMPEQ: case BC_IF_ICMPNE: case BC_IF_ICMPLT: case BC_IF_ICMPGE: case BC_IF_ICMPGT:
    case BC_IF_ICMPLE:
        return arith(f, "II", '-', err);
    case BC_IF_ACMPEQ: case BC_IF_ACMPNE:
        if (pop_cat(f, 1, NULL, err) < 0)
            return -1;
        /* fall through */
    case BC_IFNULL: case BC_IFNONNULL: case BC_ARETURN: case BC_ATHROW:
    case BC_MONITORENTER: case BC_MONITOREXIT:
        return pop_cat(f, 1, NULL, err);
    case BC_GOTO: case BC_GOTO_W: case BC_RETURN:
        return 0;
    case BC_IRETURN: return arith(f, "I", '-', err);
    case BC_LRETURN: return arith(f, "J", '-', err);
    case BC_FRETURN: return arith(f, "F", '-', err);
    case BC_DRETURN: return arith(f, "D", '-', err);
    case BC_GETSTATIC: case BC_PUTSTATIC: case BC_GETFIELD: case BC_PUTFIELD:
        return step_field(x, f, in, err);
    case BC_INVOKEVIRTUAL: case BC_INVOKESPECIAL: case BC_INVOKESTATIC: case BC_INVOKEINTERFACE:
    case BC_INVOKEDYNAMIC:
        return step_invoke(x, f, code, code_len, in, err);
    case BC_NEW:
        if (cf_class_name(x->c, in->index) == NULL)
            return mct_err_set(err, MCT_E_CLASSFILE, "new of constant #%u, not a Class", in->index);
        return push(f, mk(SM_UNINIT, in->pc), err);
    case BC_NEWARRAY:
        return step_newarray(x, f, in->value, err);
    case BC_ANEWARRAY:
        return step_anewarray(x, f, in->index, err);
    case BC_ARRAYLENGTH:
        if (pop_cat(f, 1, NULL, err) < 0)
            return -1;
        return push(f, mk(SM_INTEGER, 0), err);
    case BC_CHECKCAST:
        if (pop_cat(f, 1, NULL, err) < 0 || class_type(x, in->index, &t, err) < 0)
            return -1;
        return push(f, t, err);
    case BC_INSTANCEOF:
        if (pop_cat(f, 1, NULL, err) < 0)
            return -1;
        return push(f, mk(SM_INTEGER, 0), err);
    case BC_MULTIANEWARRAY: {
        int32_t i;

        if (in->value < 1)
            return mct_err_set(err, MCT_E_CLASSFILE, "multianewarray of 0 dimensions at pc %u", in->pc);
        for (i = 0; i < in->value; i++)
            if (pop_cat(f, 1, NULL, err) < 0)
                return -1;
        if (class_type(x, in->index, &t, err) < 0)
            return -1;
        return push(f, t, err);
    }
    default:
        return mct_err_set(err, MCT_E_UNSUPPORTED, "%s at pc %u is not simulated", bc_name(op), in->pc);
    }
}
