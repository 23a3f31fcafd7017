/* rewrite.c — see rewrite.h.
 *
 * Each target method is laid out anew: every old instruction gets a new pc
 * (npc) and a branch landing point (tgt). The entry probe is a prefix of
 * pc 0 that branches to pc 0 skip; an exit probe is a prefix of a return
 * that branches to it run. 16-bit branches that overflow are widened
 * (goto -> goto_w; a conditional -> the inverted one over a goto_w, whose
 * fall-through gets a StackMapTable frame computed by stackmap.h's
 * simulator), switch padding follows the new pcs, and the layout is
 * repeated until nothing widens. The catch-all handler goes after the code.
 * Every table with code offsets is remapped; anything unexpected makes the
 * method skipped, never a class that would fail verification. */
#include "rewrite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "bytecode.h"
#include "cpool.h"
#include "handoff.h"
#include "stackmap.h"

#define NO_IDX UINT32_MAX

/* One instruction of the old code and its place in the new. */
struct ins {
    bc_insn in;
    uint32_t tgt;      /* where branches to it land */
    uint32_t npc;      /* where the instruction itself is */
    uint32_t len;      /* its new length (widening, switch padding) */
    uint8_t widened;   /* a 16-bit branch written as goto_w */
    int32_t frame;     /* its frame in fl, or -1 */
    int8_t ho;         /* a hand-off site: its task's kind (handoff.h); -1: none */
    uint8_t ho_swap;   /* an argument follows the task */
    uint8_t ho_future; /* the site returns the task's future: HO_HANDED_FUTURE takes it */
};

/* The rewrite of one method. */
struct meth {
    const cf_class *c;
    const cf_member *m;
    const cf_code *code;
    sm_ctx *sm;
    cpool *cp;
    rw_outcome *oc;
    mct_err *err;
    struct ins *ins;
    uint32_t n;
    int32_t *at;           /* old pc -> instruction index, -1 inside one; at[code_len] = n */
    int frames;            /* the class uses StackMapTable frames (version >= 50) */
    int checked_frames;    /* the frames describe every branch target (so simulation is exact) */
    const cf_attr *smt;    /* the method's StackMapTable, or NULL */
    sm_list fl;            /* decoded frames; fl.f[0] is the initial frame */
    sm_list extra;         /* frames computed for widened branches */
    uint32_t init_idx;     /* constructor: the instruction initialising `this`, else NO_IDX */
    uint8_t idcode[3];     /* push id */
    uint32_t idlen;
    int receiver;          /* the entry probe takes `this` (aload_0 first) */
    mct_buf args;          /* after the entry probe: the arguments to their probes */
    uint16_t enter_ref, exit_ref, fail_ref;
    int keep;              /* rw_probes.keep: enter's result lives in local kept */
    uint16_t kept;         /* the new local: the old max_locals */
    uint8_t kept_store[4], kept_load[4]; /* istore / iload of it */
    uint32_t kept_len;     /* the length of each */
    uint16_t ho_ref[HO_KINDS];     /* the wrappers of the kinds met, 0: none */
    uint16_t handed_ref;           /* the probe after a hand-off site, 0: none */
    uint16_t handed_future_ref;    /* the probe after a site returning a future, 0: none */
    uint8_t ho_idcode[HO_KINDS][3]; /* push the kind's task method's number */
    uint32_t ho_idlen[HO_KINDS];
    uint32_t code_end;     /* new pc after the last old instruction = the handler */
    uint32_t total;        /* new code length */
};

enum { OK = 0, SKIP = 1, FATAL = -1 };

static int skip(struct meth *M, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int skip(struct meth *M, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(M->oc->reason, sizeof M->oc->reason, fmt, ap);
    va_end(ap);
    M->oc->status = RW_SKIPPED;
    return SKIP;
}

/* A failure of a helper with err set: out of memory or a full constant pool
 * stops the whole class, anything else skips the method. */
static int failed(struct meth *M, const char *what)
{
    if (M->err->code == MCT_E_NOMEM || M->err->code == MCT_E_TOOBIG || M->err->code == MCT_E_INTERNAL)
        return FATAL;
    return skip(M, "%s: %s", what, M->err->msg);
}

static int is_return(const struct ins *i)
{
    return (i->in.flags & BC_F_RETURN) != 0;
}

/* --- decoding and checks ----------------------------------------------------------- */

static int valid_pc(const struct meth *M, int64_t pc)
{
    return pc >= 0 && pc < M->code->code_len && M->at[pc] >= 0;
}

/* pc is an instruction start or the end of the code. */
static int valid_end(const struct meth *M, int64_t pc)
{
    return pc == M->code->code_len || valid_pc(M, pc);
}

static int decode(struct meth *M)
{
    const cf_code *code = M->code;
    uint32_t pc = 0, i, k;

    M->ins = calloc(code->code_len, sizeof *M->ins);
    M->at = malloc(((size_t)code->code_len + 1) * sizeof *M->at);
    if (M->ins == NULL || M->at == NULL)
        return mct_err_set(M->err, MCT_E_NOMEM, "out of memory rewriting %s.%s", M->c->name, M->m->name);
    memset(M->at, 0xff, ((size_t)code->code_len + 1) * sizeof *M->at);
    while (pc < code->code_len) {
        struct ins *I = &M->ins[M->n];

        if (bc_decode(code->code, code->code_len, pc, &I->in, M->err) < 0)
            return failed(M, "code does not decode");
        if (I->in.op == BC_JSR || I->in.op == BC_JSR_W || I->in.op == BC_RET)
            return skip(M, "uses jsr/ret subroutines");
        I->frame = -1;
        I->ho = -1;
        M->at[pc] = (int32_t)M->n++;
        pc += I->in.len;
    }
    M->at[code->code_len] = (int32_t)M->n;
    if (!(M->ins[M->n - 1].in.flags & BC_F_ENDS))
        return skip(M, "code can run past its end");
    for (i = 0; i < M->n; i++) {
        const bc_insn *in = &M->ins[i].in;

        if (in->form == BC_FORM_BRANCH || in->form == BC_FORM_BRANCH_W) {
            if (!valid_pc(M, in->target))
                return skip(M, "%s at pc %u branches outside the instructions", bc_name(in->op), in->pc);
        } else if (in->form == BC_FORM_TABLESWITCH || in->form == BC_FORM_LOOKUPSWITCH) {
            if (!valid_pc(M, in->dflt))
                return skip(M, "%s at pc %u branches outside the instructions", bc_name(in->op), in->pc);
            for (k = 0; k < in->ntargets; k++)
                if (!valid_pc(M, bc_switch_target(code->code, in, k)))
                    return skip(M, "%s at pc %u branches outside the instructions", bc_name(in->op), in->pc);
        }
    }
    for (i = 0; i < code->n_handlers; i++) {
        const cf_handler *h = &code->handlers[i];

        if (!valid_pc(M, h->start) || !valid_end(M, h->end) || !valid_pc(M, h->handler))
            return skip(M, "exception table entry %u is not on instruction boundaries", i);
    }
    return OK;
}

/* Decodes the frames and ties them to instructions; checks that each
 * Uninitialized(pc) names a `new`. */
static int load_frames(struct meth *M)
{
    const cf_code *code = M->code;
    const cf_attr *smt = NULL;
    size_t i;
    uint16_t j;
    uint32_t k;

    for (j = 0; j < code->n_attrs; j++) {
        if (strcmp(code->attrs[j].name, "StackMapTable") != 0)
            continue;
        if (smt != NULL && M->frames)
            return skip(M, "has two StackMapTable attributes");
        smt = &code->attrs[j];
    }
    /* before version 50 a StackMapTable means nothing to the JVM: it is
     * copied as it is */
    M->smt = M->frames ? smt : NULL;
    sm_list_init(&M->fl, code->max_locals, code->max_stack);
    sm_list_init(&M->extra, code->max_locals, code->max_stack);
    if (sm_decode(M->sm, M->m, M->smt, &M->fl, M->err) < 0)
        return failed(M, "StackMapTable");
    for (i = 1; i < M->fl.n; i++) {
        const sm_frame *f = &M->fl.f[i];

        if (!valid_pc(M, f->pc))
            return skip(M, "StackMapTable frame at pc %u is not on an instruction", f->pc);
        M->ins[M->at[f->pc]].frame = (int32_t)i;
        for (k = 0; k < (uint32_t)f->nlocals + f->nstack; k++) {
            const sm_type *t = k < f->nlocals ? &f->locals[k] : &f->stack[k - f->nlocals];

            if (t->tag == SM_UNINIT && (!valid_pc(M, t->v) || code->code[t->v] != BC_NEW))
                return skip(M, "StackMapTable frame at pc %u has Uninitialized(%u), not a new", f->pc, t->v);
        }
    }
    return OK;
}

/* Whether every place the verifier needs a frame has one: branch and
 * handler targets, and the instruction after one that ends control flow. */
static int frames_complete(const struct meth *M, uint32_t *bad_pc)
{
    const cf_code *code = M->code;
    uint32_t i, k;

#define NEED(pc)                                                  \
    do {                                                          \
        if (M->ins[M->at[pc]].frame < 0) {                        \
            *bad_pc = (uint32_t)(pc);                             \
            return 0;                                             \
        }                                                         \
    } while (0)
    for (i = 0; i < M->n; i++) {
        const bc_insn *in = &M->ins[i].in;

        if (in->form == BC_FORM_BRANCH || in->form == BC_FORM_BRANCH_W) {
            NEED(in->target);
        } else if (in->form == BC_FORM_TABLESWITCH || in->form == BC_FORM_LOOKUPSWITCH) {
            NEED(in->dflt);
            for (k = 0; k < in->ntargets; k++)
                NEED(bc_switch_target(code->code, in, k));
        }
        if ((in->flags & BC_F_ENDS) && i + 1 < M->n)
            NEED(M->ins[i + 1].in.pc);
    }
    for (i = 0; i < code->n_handlers; i++)
        NEED(code->handlers[i].handler);
#undef NEED
    return 1;
}

/* --- simulation ---------------------------------------------------------------------------- */

static void trim(sm_frame *f)
{
    while (f->nlocals > 0 && f->locals[f->nlocals - 1].tag == SM_TOP)
        f->nlocals--;
}

/* Steps through the method from frame to frame. In a constructor it finds
 * the call that initialises `this` and checks that `this` is initialised
 * everywhere after it; with want_widened it records the state at the
 * fall-through of every widened conditional that has no frame there. */
static int simulate(struct meth *M, int want_widened)
{
    sm_list st_list;
    sm_frame *st;
    int known = 1, rc = OK, after_init = 0;
    uint32_t i;
    int ctor = M->fl.f[0].this_uninit;

    sm_list_init(&st_list, M->code->max_locals, M->code->max_stack);
    st = sm_list_add(&st_list, 0);
    if (st == NULL)
        return mct_err_set(M->err, MCT_E_NOMEM, "out of memory");
    sm_copy(st, &M->fl.f[0]);
    for (i = 0; i < M->n && rc == OK; i++) {
        const struct ins *I = &M->ins[i];
        int r;

        if (I->frame >= 0) {
            sm_copy(st, &M->fl.f[I->frame]);
            known = 1;
        }
        if (!known) {
            rc = skip(M, "no type state at pc %u (no StackMapTable frame after control ends)", I->in.pc);
            break;
        }
        if (after_init && st->this_uninit) {
            rc = skip(M, "`this` may be uninitialized at pc %u, after the super()/this() call at pc %u",
                      I->in.pc, M->ins[M->init_idx].in.pc);
            break;
        }
        if (want_widened && I->frame < 0 && i > 0 && M->ins[i - 1].widened &&
            (M->ins[i - 1].in.flags & BC_F_COND)) {
            sm_frame *f = sm_list_add(&M->extra, I->in.pc);

            if (f == NULL) {
                rc = mct_err_set(M->err, MCT_E_NOMEM, "out of memory");
                break;
            }
            sm_copy(f, st);
            f->pc = I->in.pc;
            trim(f);
            if (f->this_uninit && !sm_has_uninit_this(f)) {
                rc = skip(M, "cannot write a frame at pc %u: `this` is uninitialized but in no local", I->in.pc);
                break;
            }
        }
        r = sm_step(M->sm, st, M->code->code, M->code->code_len, &I->in, M->err);
        if (r < 0) {
            rc = failed(M, "type simulation");
            break;
        }
        if (r == 1 && ctor && !after_init) {
            M->init_idx = i;
            after_init = 1;
        }
        if (I->in.flags & BC_F_ENDS)
            known = 0;
    }
    sm_list_free(&st_list);
    if (rc == OK && ctor && M->init_idx == NO_IDX)
        rc = skip(M, "constructor never calls super() or this()");
    return rc;
}

/* A constructor of a class without frames (version < 50, or a version 50
 * method without a StackMapTable): the super()/this() call must come before
 * any branch, and nothing may jump back before it. */
static int find_init_linear(struct meth *M)
{
    sm_list st_list;
    sm_frame *st;
    uint32_t i, k, init_pc;
    int rc = OK;

    sm_list_init(&st_list, M->code->max_locals, M->code->max_stack);
    st = sm_list_add(&st_list, 0);
    if (st == NULL)
        return mct_err_set(M->err, MCT_E_NOMEM, "out of memory");
    sm_copy(st, &M->fl.f[0]);
    for (i = 0; i < M->n && M->init_idx == NO_IDX; i++) {
        int r;

        if (M->ins[i].in.flags & (BC_F_BRANCH | BC_F_ENDS)) {
            rc = skip(M, "constructor branches before its super()/this() call (no StackMapTable to follow)");
            break;
        }
        r = sm_step(M->sm, st, M->code->code, M->code->code_len, &M->ins[i].in, M->err);
        if (r < 0) {
            rc = failed(M, "type simulation");
            break;
        }
        if (r == 1)
            M->init_idx = i;
    }
    sm_list_free(&st_list);
    if (rc != OK)
        return rc;
    if (M->init_idx == NO_IDX)
        return skip(M, "constructor never calls super() or this()");
    init_pc = M->ins[M->init_idx].in.pc;
    for (i = 0; i < M->n; i++) {
        const bc_insn *in = &M->ins[i].in;
        int back = 0;

        if (in->form == BC_FORM_BRANCH || in->form == BC_FORM_BRANCH_W) {
            back = in->target <= init_pc;
        } else if (in->form == BC_FORM_TABLESWITCH || in->form == BC_FORM_LOOKUPSWITCH) {
            back = in->dflt <= init_pc;
            for (k = 0; k < in->ntargets; k++)
                back |= bc_switch_target(M->code->code, in, k) <= init_pc;
        }
        if (back)
            return skip(M, "constructor branches back before its super()/this() call at pc %u", init_pc);
    }
    for (i = 0; i < M->code->n_handlers; i++)
        if (M->code->handlers[i].start <= init_pc || M->code->handlers[i].handler <= init_pc)
            return skip(M, "constructor has an exception handler around its super()/this() call");
    return OK;
}

/* --- layout ------------------------------------------------------------------------------------ */

static int fits16(int64_t off)
{
    return off >= -32768 && off <= 32767;
}

static uint32_t tgt_of(const struct meth *M, int64_t old_pc)
{
    return M->ins[M->at[old_pc]].tgt;
}

/* The new pc of an old end offset (exclusive ends of ranges). */
static uint32_t end_of(const struct meth *M, uint32_t old_pc)
{
    return old_pc == M->code->code_len ? M->code_end : M->ins[M->at[old_pc]].tgt;
}

static uint32_t probe_len(const struct meth *M)
{
    return M->idlen + 3;
}

static uint32_t exit_len(const struct meth *M)
{
    return probe_len(M) + (M->keep ? M->kept_len : 0);
}

static uint32_t enter_len(const struct meth *M)
{
    return exit_len(M) + (M->receiver ? 1 : 0) + (uint32_t)M->args.len;
}

/* The wrapper put before a hand-off site (0: none). */
static uint32_t site_len(const struct meth *M, const struct ins *I)
{
    return I->ho < 0 ? 0 : M->ho_idlen[I->ho] + 3 + (I->ho_swap ? 2u : 0u);
}

/* The probe put after a hand-off site, saying it returned (0: none). */
static uint32_t handed_len(const struct meth *M, const struct ins *I)
{
    return I->ho < 0 ? 0 : M->ho_idlen[I->ho] + 3 + I->ho_future;
}

static int layout(struct meth *M)
{
    uint32_t i, pass;

    for (i = 0; i < M->n; i++) {
        const bc_insn *in = &M->ins[i].in;

        M->ins[i].len = in->len;
    }
    for (pass = 0;; pass++) {
        uint64_t pos = 0;
        int changed = 0;

        for (i = 0; i < M->n; i++) {
            struct ins *I = &M->ins[i];

            if (i == 0)
                pos += enter_len(M);
            I->tgt = (uint32_t)pos;
            if (is_return(I))
                pos += exit_len(M);
            pos += site_len(M, I);
            I->npc = (uint32_t)pos;
            if (I->in.form == BC_FORM_TABLESWITCH || I->in.form == BC_FORM_LOOKUPSWITCH) {
                uint32_t pad = (uint32_t)((4 - ((pos + 1) & 3)) & 3);

                I->len = 1 + pad + (I->in.form == BC_FORM_TABLESWITCH ? 12 + 4 * I->in.ntargets
                                                                       : 8 + 8 * I->in.ntargets);
            }
            pos += I->len + handed_len(M, I);
            if (pos > 65535 + 16)
                break;
        }
        M->code_end = (uint32_t)(pos > UINT32_MAX / 2 ? UINT32_MAX / 2 : pos);
        M->total = M->code_end + 1 + M->idlen + 3 + 1;
        if (pos + 1 + M->idlen + 3 + 1 > 65535)
            return skip(M, "code would grow from %u to over 65535 bytes", M->code->code_len);
        for (i = 0; i < M->n; i++) {
            struct ins *I = &M->ins[i];

            if (I->in.form != BC_FORM_BRANCH || I->widened)
                continue;
            if (!fits16((int64_t)tgt_of(M, I->in.target) - I->npc)) {
                I->widened = 1;
                I->len = I->in.op == BC_GOTO ? 5 : 8;
                changed = 1;
            }
        }
        if (!changed)
            return OK;
        if (pass > M->n)
            return skip(M, "branch layout did not settle");
    }
}

/* --- writing ------------------------------------------------------------------------------------- */

static void put_probe(const struct meth *M, mct_buf *b, uint16_t ref)
{
    buf_bytes(b, M->idcode, M->idlen);
    buf_u1(b, BC_INVOKESTATIC);
    buf_u2(b, ref);
}

static uint8_t invert(uint8_t op)
{
    if (op == BC_IFNULL)
        return BC_IFNONNULL;
    if (op == BC_IFNONNULL)
        return BC_IFNULL;
    return (uint8_t)(((op - BC_IFEQ) ^ 1) + BC_IFEQ);
}

static void emit_code(const struct meth *M, mct_buf *b)
{
    const uint8_t *code = M->code->code;
    size_t base = b->len;
    uint32_t i, k;

    for (i = 0; i < M->n; i++) {
        const struct ins *I = &M->ins[i];
        const bc_insn *in = &I->in;

        if (i == 0 && M->receiver)
            buf_u1(b, BC_ALOAD_0);
        if (i == 0) {
            put_probe(M, b, M->enter_ref);
            if (M->keep)
                buf_bytes(b, M->kept_store, M->kept_len);
            buf_bytes(b, M->args.data, M->args.len);
        }
        if (is_return(I) && M->keep)
            buf_bytes(b, M->kept_load, M->kept_len);
        if (is_return(I))
            put_probe(M, b, M->exit_ref);
        if (I->ho >= 0) {
            if (I->ho_swap)
                buf_u1(b, BC_SWAP);
            buf_bytes(b, M->ho_idcode[I->ho], M->ho_idlen[I->ho]);
            buf_u1(b, BC_INVOKESTATIC);
            buf_u2(b, M->ho_ref[I->ho]);
            if (I->ho_swap)
                buf_u1(b, BC_SWAP);
        }
        switch (in->form) {
        case BC_FORM_BRANCH:
            if (!I->widened) {
                buf_u1(b, in->op);
                buf_u2(b, (uint16_t)(int16_t)((int64_t)tgt_of(M, in->target) - I->npc));
            } else if (in->op == BC_GOTO) {
                buf_u1(b, BC_GOTO_W);
                buf_u4(b, (uint32_t)(int32_t)((int64_t)tgt_of(M, in->target) - I->npc));
            } else {
                buf_u1(b, invert(in->op));
                buf_u2(b, 8);
                buf_u1(b, BC_GOTO_W);
                buf_u4(b, (uint32_t)(int32_t)((int64_t)tgt_of(M, in->target) - (I->npc + 3)));
            }
            break;
        case BC_FORM_BRANCH_W:
            buf_u1(b, in->op);
            buf_u4(b, (uint32_t)(int32_t)((int64_t)tgt_of(M, in->target) - I->npc));
            break;
        case BC_FORM_TABLESWITCH:
        case BC_FORM_LOOKUPSWITCH:
            buf_u1(b, in->op);
            while ((b->len - base) & 3)
                buf_u1(b, 0);
            buf_u4(b, (uint32_t)(int32_t)((int64_t)tgt_of(M, in->dflt) - I->npc));
            if (in->form == BC_FORM_TABLESWITCH) {
                buf_u4(b, (uint32_t)in->low);
                buf_u4(b, (uint32_t)in->high);
            } else {
                buf_u4(b, in->ntargets);
            }
            for (k = 0; k < in->ntargets; k++) {
                if (in->form == BC_FORM_LOOKUPSWITCH)
                    buf_u4(b, (uint32_t)bc_switch_key(code, in, k));
                buf_u4(b, (uint32_t)(int32_t)((int64_t)tgt_of(M, bc_switch_target(code, in, k)) - I->npc));
            }
            break;
        default:
            buf_bytes(b, code + in->pc, in->len);
            break;
        }
        if (I->ho >= 0) {
            if (I->ho_future)
                buf_u1(b, BC_DUP);
            buf_bytes(b, M->ho_idcode[I->ho], M->ho_idlen[I->ho]);
            buf_u1(b, BC_INVOKESTATIC);
            buf_u2(b, I->ho_future ? M->handed_future_ref : M->handed_ref);
        }
    }
    /* the catch-all handler */
    buf_u1(b, BC_DUP);
    put_probe(M, b, M->fail_ref);
    buf_u1(b, BC_ATHROW);
}

static uint32_t map_new(void *ctx, uint32_t old_pc)
{
    const struct meth *M = ctx;

    return M->ins[M->at[old_pc]].npc;
}

static int cmp_frame_pc(const void *a, const void *b)
{
    const sm_frame *x = *(const sm_frame *const *)a, *y = *(const sm_frame *const *)b;

    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* f, a frame of the old code, as dst at its new pc: with rw_probes.keep,
 * its locals (in space, kept + 1 slots) end with the kept local, which
 * every frame after the entry probe has. */
static void new_frame(const struct meth *M, const sm_frame *f, sm_frame *dst, sm_type *space)
{
    uint32_t i;

    *dst = *f;
    dst->pc = tgt_of(M, f->pc);
    if (!M->keep)
        return;
    for (i = 0; i < M->kept; i++)
        space[i] = i < f->nlocals ? f->locals[i] : (sm_type){SM_TOP, 0};
    space[M->kept] = (sm_type){SM_INTEGER, 0};
    dst->locals = space;
    dst->nlocals = dst->max_locals = (uint16_t)(M->kept + 1);
}

/* Writes the new StackMapTable info into b. */
static int emit_frames(struct meth *M, mct_buf *b)
{
    size_t n = M->fl.n - 1 + M->extra.n + 1, i, k = 0, per = M->keep ? (size_t)M->kept + 1 : 0;
    sm_frame *copies = calloc(n, sizeof *copies);
    const sm_frame **order = calloc(n, sizeof *order);
    sm_type *space = per ? calloc(n * per, sizeof *space) : NULL;
    sm_type thr;
    sm_frame h;
    int rc;

    if (copies == NULL || order == NULL || (per && space == NULL)) {
        free(copies);
        free(order);
        free(space);
        return mct_err_set(M->err, MCT_E_NOMEM, "out of memory");
    }
    for (i = 1; i < M->fl.n; i++, k++)
        new_frame(M, &M->fl.f[i], &copies[k], per ? space + k * per : NULL);
    for (i = 0; i < M->extra.n; i++, k++)
        new_frame(M, &M->extra.f[i], &copies[k], per ? space + k * per : NULL);
    /* the handler: no locals, the Throwable on the stack */
    memset(&h, 0, sizeof h);
    h.pc = M->code_end;
    h.nstack = 1;
    h.stack = &thr;
    thr.tag = SM_OBJECT;
    rc = sm_intern(M->sm, "java/lang/Throwable", 19, &thr.v, M->err);
    copies[k++] = h;
    for (i = 0; i < n; i++)
        order[i] = &copies[i];
    qsort(order, n, sizeof *order, cmp_frame_pc);
    if (rc == 0)
        rc = sm_encode(M->sm, &M->fl.f[0], order, n, M->cp, map_new, M, b, M->err);
    free(copies);
    free(order);
    free(space);
    return rc < 0 ? failed(M, "StackMapTable") : OK;
}

/* LineNumberTable: start_pc -> tgt (pc 0 stays 0). */
static int emit_lines(struct meth *M, const uint8_t *p, uint32_t len, mct_buf *b)
{
    uint16_t n, i;

    if (len < 2 || (n = buf_get_u2(p), len != 2 + 4u * n))
        return skip(M, "malformed LineNumberTable");
    buf_u2(b, n);
    for (i = 0; i < n; i++) {
        uint16_t pc = buf_get_u2(p + 2 + 4 * i);

        if (!valid_pc(M, pc))
            return skip(M, "LineNumberTable entry at pc %u is not on an instruction", pc);
        buf_u2(b, pc == 0 ? 0 : (uint16_t)tgt_of(M, pc));
        buf_u2(b, buf_get_u2(p + 4 + 4 * i));
    }
    return OK;
}

/* A (start_pc, length) range of a local: starts at 0 stay at 0. */
static int map_range(struct meth *M, const uint8_t *p, mct_buf *b, const char *what)
{
    uint32_t start = buf_get_u2(p), end = start + buf_get_u2(p + 2), ns, ne;

    if (!valid_pc(M, start) || !valid_end(M, end))
        return skip(M, "%s range %u+%u is not on instructions", what, start, end - start);
    ns = start == 0 ? 0 : tgt_of(M, start);
    ne = end_of(M, end);
    buf_u2(b, (uint16_t)ns);
    buf_u2(b, (uint16_t)(ne - ns));
    return OK;
}

/* LocalVariableTable and LocalVariableTypeTable. */
static int emit_locals(struct meth *M, const uint8_t *p, uint32_t len, mct_buf *b, const char *what)
{
    uint16_t n, i;
    int rc;

    if (len < 2 || (n = buf_get_u2(p), len != 2 + 10u * n))
        return skip(M, "malformed %s", what);
    buf_u2(b, n);
    for (i = 0; i < n; i++) {
        const uint8_t *e = p + 2 + 10 * i;

        if ((rc = map_range(M, e, b, what)) != OK)
            return rc;
        buf_bytes(b, e + 4, 6);
    }
    return OK;
}

/* Skips an element_value (JVMS §4.7.16.1) at *pos; -1 if malformed. */
static int skip_element(const uint8_t *p, uint32_t len, uint32_t *pos, int depth);

static int skip_annotation(const uint8_t *p, uint32_t len, uint32_t *pos, int depth)
{
    uint16_t n, i;

    if (depth > 32 || len - *pos < 4)
        return -1;
    n = buf_get_u2(p + *pos + 2);
    *pos += 4;
    for (i = 0; i < n; i++) {
        if (len - *pos < 2)
            return -1;
        *pos += 2;
        if (skip_element(p, len, pos, depth + 1) < 0)
            return -1;
    }
    return 0;
}

static int skip_element(const uint8_t *p, uint32_t len, uint32_t *pos, int depth)
{
    uint8_t tag;

    if (depth > 32 || len - *pos < 1)
        return -1;
    tag = p[(*pos)++];
    switch (tag) {
    case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z': case 's': case 'c':
        if (len - *pos < 2)
            return -1;
        *pos += 2;
        return 0;
    case 'e':
        if (len - *pos < 4)
            return -1;
        *pos += 4;
        return 0;
    case '@':
        return skip_annotation(p, len, pos, depth + 1);
    case '[': {
        uint16_t n, i;

        if (len - *pos < 2)
            return -1;
        n = buf_get_u2(p + *pos);
        *pos += 2;
        for (i = 0; i < n; i++)
            if (skip_element(p, len, pos, depth + 1) < 0)
                return -1;
        return 0;
    }
    default:
        return -1;
    }
}

/* Runtime(In)VisibleTypeAnnotations of the Code attribute: the targets
 * 0x40..0x4B carry code offsets. */
static int emit_type_annos(struct meth *M, const uint8_t *p, uint32_t len, mct_buf *b, const char *what)
{
    uint32_t pos = 2, copied;
    uint16_t n, i, k;
    int rc;

    if (len < 2)
        return skip(M, "malformed %s", what);
    n = buf_get_u2(p);
    buf_u2(b, n);
    for (i = 0; i < n; i++) {
        uint8_t target;

        if (len - pos < 1)
            return skip(M, "malformed %s", what);
        target = p[pos];
        buf_u1(b, target);
        pos++;
        if (target == 0x40 || target == 0x41) {
            uint16_t tl;

            if (len - pos < 2 || (tl = buf_get_u2(p + pos), len - pos - 2 < 6u * tl))
                return skip(M, "malformed %s", what);
            buf_u2(b, tl);
            pos += 2;
            for (k = 0; k < tl; k++) {
                if ((rc = map_range(M, p + pos, b, what)) != OK)
                    return rc;
                buf_bytes(b, p + pos + 4, 2);
                pos += 6;
            }
        } else if (target == 0x42) {
            if (len - pos < 2)
                return skip(M, "malformed %s", what);
            buf_bytes(b, p + pos, 2); /* exception table index: ours is appended last */
            pos += 2;
        } else if (target >= 0x43 && target <= 0x4b) {
            uint32_t w = target >= 0x47 ? 3 : 2;
            uint16_t off;

            if (len - pos < w)
                return skip(M, "malformed %s", what);
            off = buf_get_u2(p + pos);
            if (!valid_pc(M, off))
                return skip(M, "%s names pc %u, not an instruction", what, off);
            buf_u2(b, (uint16_t)M->ins[M->at[off]].npc);
            buf_bytes(b, p + pos + 2, w - 2);
            pos += w;
        } else {
            return skip(M, "%s has target type 0x%02x in code", what, target);
        }
        /* type_path, then the annotation itself, copied as they are */
        copied = pos;
        if (len - pos < 1 || len - pos - 1 < 2u * p[pos])
            return skip(M, "malformed %s", what);
        pos += 1 + 2u * p[pos];
        if (skip_annotation(p, len, &pos, 0) < 0)
            return skip(M, "malformed %s", what);
        buf_bytes(b, p + copied, pos - copied);
    }
    if (pos != len)
        return skip(M, "malformed %s", what);
    return OK;
}

/* Writes one attribute of the Code attribute (remapped where it holds
 * offsets). */
static int emit_code_attr(struct meth *M, const cf_attr *a, mct_buf *b)
{
    const uint8_t *p = cf_attr_info(M->c, a);
    size_t at = b->len;
    int rc = OK;

    buf_u2(b, a->name_index);
    buf_u4(b, 0);
    if (strcmp(a->name, "StackMapTable") == 0 && M->frames)
        rc = emit_frames(M, b);
    else if (strcmp(a->name, "LineNumberTable") == 0)
        rc = emit_lines(M, p, a->len, b);
    else if (strcmp(a->name, "LocalVariableTable") == 0 || strcmp(a->name, "LocalVariableTypeTable") == 0)
        rc = emit_locals(M, p, a->len, b, a->name);
    else if (strcmp(a->name, "RuntimeVisibleTypeAnnotations") == 0 ||
             strcmp(a->name, "RuntimeInvisibleTypeAnnotations") == 0)
        rc = emit_type_annos(M, p, a->len, b, a->name);
    else
        buf_bytes(b, p, a->len);
    buf_put_u4(b, at + 2, (uint32_t)(b->len - at - 6));
    return rc;
}

/* Whether the new code gets a StackMapTable of its own making: classes of
 * version > 50, and version 50 methods that have one or need none for their
 * original code (straight-line code without handlers); other version 50
 * methods fail over to the old verifier as they did before. */
static int wants_new_table(const struct meth *M)
{
    uint32_t i;

    if (!M->frames)
        return 0;
    if (M->smt != NULL || M->c->major > 50)
        return 1;
    if (M->code->n_handlers > 0)
        return 0;
    for (i = 0; i < M->n; i++)
        if (M->ins[i].in.flags & BC_F_BRANCH)
            return 0;
    return 1;
}

/* The attributes of the new Code attribute: the old ones remapped, and a
 * StackMapTable where the method had none and now needs one. */
static int emit_code_attrs(struct meth *M, mct_buf *b, int add_table)
{
    const cf_code *code = M->code;
    uint16_t j;
    size_t t;
    int rc, k;

    buf_u2(b, (uint16_t)(code->n_attrs + (add_table ? 1 : 0)));
    for (j = 0; j < code->n_attrs; j++)
        if ((rc = emit_code_attr(M, &code->attrs[j], b)) != OK)
            return rc;
    if (!add_table)
        return OK;
    k = cpool_utf8(M->cp, "StackMapTable", 13, M->err);
    if (k < 0)
        return FATAL;
    t = b->len;
    buf_u2(b, (uint16_t)k);
    buf_u4(b, 0);
    if ((rc = emit_frames(M, b)) != OK)
        return rc;
    buf_put_u4(b, t + 2, (uint32_t)(b->len - t - 6));
    return OK;
}

static int emit_method(struct meth *M, mct_buf *b)
{
    const cf_member *m = M->m;
    const cf_code *code = M->code;
    uint16_t i, j;
    int rc, new_table = wants_new_table(M);
    uint32_t catch_start = M->init_idx == NO_IDX ? M->ins[0].tgt : M->ins[M->init_idx + 1].tgt;

    buf_u2(b, m->access);
    buf_u2(b, m->name_index);
    buf_u2(b, m->desc_index);
    buf_u2(b, m->n_attrs);
    for (i = 0; i < m->n_attrs; i++) {
        const cf_attr *a = &m->attrs[i];
        size_t at;
        uint32_t grow = M->handed_future_ref != 0 || M->keep ? 2u : 1u;
        uint32_t max_stack = code->max_stack + grow < 3 ? 3 : code->max_stack + grow;

        if (a != code->attr) {
            buf_bytes(b, M->c->data + a->off, 6 + (size_t)a->len);
            continue;
        }
        at = b->len;
        buf_u2(b, a->name_index);
        buf_u4(b, 0);
        buf_u2(b, (uint16_t)max_stack);
        buf_u2(b, (uint16_t)(code->max_locals + (M->keep ? 1 : 0)));
        buf_u4(b, M->total);
        emit_code(M, b);
        buf_u2(b, (uint16_t)(code->n_handlers + 1));
        for (j = 0; j < code->n_handlers; j++) {
            const cf_handler *h = &code->handlers[j];

            buf_u2(b, (uint16_t)tgt_of(M, h->start));
            buf_u2(b, (uint16_t)end_of(M, h->end));
            buf_u2(b, (uint16_t)tgt_of(M, h->handler));
            buf_u2(b, h->catch_type);
        }
        buf_u2(b, (uint16_t)catch_start);
        buf_u2(b, (uint16_t)M->code_end);
        buf_u2(b, (uint16_t)M->code_end);
        buf_u2(b, 0);
        if ((rc = emit_code_attrs(M, b, new_table && M->smt == NULL)) != OK)
            return rc;
        buf_put_u4(b, at + 2, (uint32_t)(b->len - at - 6));
    }
    if (buf_failed(b))
        return mct_err_set(M->err, MCT_E_NOMEM, "out of memory writing %s.%s", M->c->name, m->name);
    return OK;
}

/* Push id into code (*len bytes): the shortest of iconst, bipush, sipush,
 * ldc, ldc_w. */
static int encode_int(struct meth *M, int32_t id, uint8_t code[3], uint32_t *len)
{
    if (id >= -1 && id <= 5) {
        code[0] = (uint8_t)(BC_ICONST_0 + id);
        *len = 1;
    } else if (id >= -128 && id <= 127) {
        code[0] = BC_BIPUSH;
        code[1] = (uint8_t)id;
        *len = 2;
    } else if (id >= -32768 && id <= 32767) {
        code[0] = BC_SIPUSH;
        code[1] = (uint8_t)((uint16_t)id >> 8);
        code[2] = (uint8_t)id;
        *len = 3;
    } else {
        int k = cpool_integer(M->cp, id, M->err);

        if (k < 0)
            return FATAL;
        if (k <= 255) {
            code[0] = BC_LDC;
            code[1] = (uint8_t)k;
            *len = 2;
        } else {
            code[0] = BC_LDC_W;
            code[1] = (uint8_t)(k >> 8);
            code[2] = (uint8_t)k;
            *len = 3;
        }
    }
    return OK;
}

static int encode_id(struct meth *M, int32_t id)
{
    return encode_int(M, id, M->idcode, &M->idlen);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Marks the method's hand-off sites (t->handoff: followed), each kind met
 * with its wrapper's reference and its task method's number. */
static int find_sites(struct meth *M, const rw_target *t)
{
    uint32_t i;

    for (i = 0; t->handoff != NULL && i < M->n; i++) {
        struct ins *I = &M->ins[i];
        cf_ref ref;
        int k, own, swap = 0, r;

        if ((I->in.op != BC_INVOKEVIRTUAL && I->in.op != BC_INVOKEINTERFACE && I->in.op != BC_INVOKESTATIC &&
             I->in.op != BC_INVOKESPECIAL) ||
            cf_member_ref(M->c, I->in.index, &ref) < 0)
            continue;
        own = I->in.op != BC_INVOKESTATIC && t->n_executors > 0 &&
              bsearch(&ref.owner, t->executors, t->n_executors, sizeof *t->executors, cmp_name) != NULL;
        if ((k = ho_site(ref.owner, ref.name, ref.desc, own, &swap)) < 0)
            continue;
        if (M->handed_ref == 0) {
            if ((r = cpool_methodref(M->cp, t->probes->owner, HO_HANDED, "(I)V", M->err)) < 0)
                return FATAL;
            M->handed_ref = (uint16_t)r;
        }
        if (M->ho_ref[k] == 0) {
            if ((r = cpool_methodref(M->cp, t->probes->owner, ho_tasks[k].wrap, ho_tasks[k].wrap_desc, M->err)) < 0 ||
                encode_int(M, t->handoff[k], M->ho_idcode[k], &M->ho_idlen[k]) != OK)
                return FATAL;
            M->ho_ref[k] = (uint16_t)r;
        }
        /* its future and the number on top of what the site left: two
         * slots more than the code's own, which max_stack must allow */
        if (ho_returns_future(ref.desc) && M->code->max_stack < 65534) {
            if (M->handed_future_ref == 0) {
                if ((r = cpool_methodref(M->cp, t->probes->owner, HO_HANDED_FUTURE, HO_HANDED_FUTURE_DESC,
                                         M->err)) < 0)
                    return FATAL;
                M->handed_future_ref = (uint16_t)r;
            }
            I->ho_future = 1;
        }
        I->ho = (int8_t)k;
        I->ho_swap = (uint8_t)swap;
    }
    return OK;
}

/* The instruction op (xload/xstore) of local slot into out, returning its
 * length: op0 + slot (xload_<n>, xstore_<n>) for slots 0 to 3, op with a
 * byte operand to 255, wide beyond. */
static uint32_t local_insn(uint8_t out[4], uint8_t op, uint8_t op0, uint16_t slot)
{
    if (slot <= 3) {
        out[0] = (uint8_t)(op0 + slot);
        return 1;
    }
    if (slot <= 255) {
        out[0] = op;
        out[1] = (uint8_t)slot;
        return 2;
    }
    out[0] = BC_WIDE;
    out[1] = op;
    out[2] = (uint8_t)(slot >> 8);
    out[3] = (uint8_t)slot;
    return 4;
}

/* The local that keeps enter's result (rw_probes.keep): slot, after every
 * local of the method, and its istore and iload. */
static void kept_code(struct meth *M, uint16_t slot)
{
    M->keep = 1;
    M->kept = slot;
    M->kept_len = local_insn(M->kept_store, BC_ISTORE, BC_ISTORE_0, slot);
    local_insn(M->kept_load, BC_ILOAD, BC_ILOAD_0, slot);
}

static int probe_refs(struct meth *M, const rw_probes *p)
{
    static const char *const enter_desc[2][2] = {{"(I)V", "(Ljava/lang/Object;I)V"},
                                                 {"(I)I", "(Ljava/lang/Object;I)I"}};
    int e = cpool_methodref(M->cp, p->owner, p->enter, enter_desc[p->keep != 0][p->enter_receiver != 0], M->err);
    int x = e < 0 ? -1 : cpool_methodref(M->cp, p->owner, p->exit, p->keep ? "(II)V" : "(I)V", M->err);
    int f = x < 0 ? -1 : cpool_methodref(M->cp, p->owner, p->fail, "(Ljava/lang/Throwable;I)V", M->err);

    if (f < 0)
        return FATAL;
    M->enter_ref = (uint16_t)e;
    M->exit_ref = (uint16_t)x;
    M->fail_ref = (uint16_t)f;
    return OK;
}

/* The argument sequence (rw_probes.arg): each argument loaded from its
 * slot and passed to the probe of its type, in M->args. It pushes at most
 * two slots on an empty stack, which the max_stack the entry probe needs
 * covers. */
static int args_code(struct meth *M, const rw_probes *p)
{
    /* xload, xload_0 of I, J, F, D, A (JVMS 6.5). */
    static const uint8_t load[5] = {0x15, 0x16, 0x17, 0x18, 0x19}, load0[5] = {0x1a, 0x1e, 0x22, 0x26, 0x2a};
    const char *d = M->m->desc;
    uint32_t slot = (M->m->access & CF_ACC_STATIC) ? 0 : 1;
    uint8_t insn[4];
    char name[64];

    if (d[0] != '(' || strlen(p->arg) + 2 > sizeof name)
        return skip(M, "its descriptor cannot pass arguments to probes");
    for (d++; *d != ')';) {
        char t = *d == '[' ? 'L' : *d;
        int kind = t == 'J' ? 1 : t == 'F' ? 2 : t == 'D' ? 3 : t == 'L' ? 4 : 0;
        int ref;

        if (cf_field_desc_skip(&d) < 0 || strchr("ZBCSIJFDL", t) == NULL)
            return skip(M, "its descriptor cannot pass arguments to probes");
        snprintf(name, sizeof name, "%s%c", p->arg, t);
        if (t == 'L') {
            ref = cpool_methodref(M->cp, p->owner, name, "(Ljava/lang/Object;)V", M->err);
        } else {
            char desc[5] = {'(', t, ')', 'V', '\0'};

            ref = cpool_methodref(M->cp, p->owner, name, desc, M->err);
        }
        if (ref < 0)
            return FATAL;
        buf_bytes(&M->args, insn, local_insn(insn, load[kind], load0[kind], (uint16_t)slot));
        buf_u1(&M->args, BC_INVOKESTATIC);
        buf_u2(&M->args, (uint16_t)ref);
        slot += kind == 1 || kind == 3 ? 2 : 1;
    }
    if (buf_failed(&M->args))
        return mct_err_set(M->err, MCT_E_NOMEM, "out of memory rewriting %s.%s", M->c->name, M->m->name);
    return OK;
}

static int rewrite_method(struct meth *M, const rw_target *t, mct_buf *b)
{
    const cf_member *m = M->m;
    int rc, widened = 0;
    uint32_t i, bad;

    if (m->code == NULL) {
        if (m->access & CF_ACC_ABSTRACT)
            return skip(M, "abstract method has no code");
        if (m->access & CF_ACC_NATIVE)
            return skip(M, "native method has no code");
        return skip(M, "method has no Code attribute");
    }
    /* Object.<init> runs for every object, and HotSpot's compilers treat it
     * as an intrinsic: C2 crashed compiling it with a handler (JDK 17). */
    if (strcmp(M->c->name, "java/lang/Object") == 0 && strcmp(m->name, "<init>") == 0)
        return skip(M, "java.lang.Object.<init> is never instrumented (it runs for every object)");
    if (M->c->major == 45 && M->c->minor < 3)
        return skip(M, "class file version 45.%u predates the Code layout of 45.3", M->c->minor);
    /* the probes push up to two slots over the method's own */
    if (m->code->max_stack > 65533)
        return skip(M, "max_stack is already over 65533");
    if (t->probes->keep && m->code->max_locals == 65535)
        return skip(M, "max_locals is already 65535: no local is left for the probes");
    /* A constructor's `this` is not an object yet where the probe runs. */
    if (t->probes->enter_receiver && ((m->access & CF_ACC_STATIC) || m->name[0] == '<'))
        return skip(M, "a %s has no receiver to pass to the entry probe",
                    (m->access & CF_ACC_STATIC) ? "static method" : "constructor");
    M->receiver = t->probes->enter_receiver;
    if (t->probes->keep)
        kept_code(M, m->code->max_locals);
    M->code = m->code;
    M->frames = M->c->major >= 50;
    if ((rc = decode(M)) != OK || (rc = load_frames(M)) != OK)
        return rc;
    /* Exact simulation needs a frame wherever the verifier wants one;
     * version 50 methods without a StackMapTable fall back to rules that
     * need no frames, as the JVM falls back to the old verifier. */
    M->checked_frames = M->frames && (M->c->major > 50 || M->smt != NULL);
    if (M->checked_frames && !frames_complete(M, &bad))
        return skip(M, "no StackMapTable frame at pc %u where the verifier needs one", bad);
    if (M->fl.f[0].this_uninit) {
        rc = M->checked_frames ? simulate(M, 0) : find_init_linear(M);
        if (rc != OK)
            return rc;
    }
    if ((rc = encode_id(M, t->id)) != OK || (rc = probe_refs(M, t->probes)) != OK ||
        (rc = find_sites(M, t)) != OK)
        return rc;
    if (t->probes->arg != NULL && (rc = args_code(M, t->probes)) != OK)
        return rc;
    if ((rc = layout(M)) != OK)
        return rc;
    for (i = 0; i < M->n; i++)
        widened |= M->ins[i].widened && (M->ins[i].in.flags & BC_F_COND);
    /* A new table is only written over frames that describe the whole
     * method (a version 50 method without a table has none written). */
    if (widened && wants_new_table(M) && (rc = simulate(M, 1)) != OK)
        return rc;
    if ((rc = emit_method(M, b)) != OK)
        return rc;
    M->oc->old_len = M->code->code_len;
    M->oc->new_len = M->total;
    for (i = 0; i < M->n; i++)
        M->oc->widened += M->ins[i].widened;
    M->oc->new_frames = wants_new_table(M) ? (uint32_t)M->extra.n + 1 : 0;
    return OK;
}

static void meth_free(struct meth *M)
{
    buf_free(&M->args);
    free(M->ins);
    free(M->at);
    sm_list_free(&M->fl);
    sm_list_free(&M->extra);
}

int rw_rewrite(const cf_class *c, const rw_target *targets, size_t n,
               rw_outcome *outcomes, uint8_t **out, size_t *out_len, mct_err *err)
{
    mct_buf *bodies = NULL, b;
    int32_t *which = NULL;
    cpool *cp = NULL;
    sm_ctx *sm = NULL;
    size_t i, done = 0, cplen;
    const uint8_t *cpadd;
    int rc = -1;

    *out = NULL;
    *out_len = 0;
    buf_init(&b);
    which = malloc(((size_t)c->n_methods + 1) * sizeof *which);
    bodies = calloc(n ? n : 1, sizeof *bodies);
    if (which == NULL || bodies == NULL) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory rewriting %s", c->name);
        goto out;
    }
    memset(which, 0xff, ((size_t)c->n_methods + 1) * sizeof *which);
    for (i = 0; i < n; i++) {
        if (targets[i].method >= c->n_methods) {
            mct_err_set(err, MCT_E_ARG, "method index %u is out of range (%s has %u methods)",
                        targets[i].method, c->name, c->n_methods);
            goto out;
        }
        if (which[targets[i].method] >= 0) {
            mct_err_set(err, MCT_E_ARG, "method %s%s of %s is listed twice", c->methods[targets[i].method].name,
                        c->methods[targets[i].method].desc, c->name);
            goto out;
        }
        if (targets[i].probes == NULL || targets[i].probes->owner == NULL || targets[i].probes->enter == NULL ||
            targets[i].probes->exit == NULL || targets[i].probes->fail == NULL) {
            mct_err_set(err, MCT_E_ARG, "target %zu has no probes", i);
            goto out;
        }
        which[targets[i].method] = (int32_t)i;
    }
    cp = cpool_new(c, err);
    sm = cp ? sm_new(c, err) : NULL;
    if (sm == NULL)
        goto out;
    for (i = 0; i < n; i++) {
        struct meth M = {.c = c, .m = &c->methods[targets[i].method], .sm = sm, .cp = cp,
                         .oc = &outcomes[i], .err = err, .init_idx = NO_IDX};
        cpool_mark mark = cpool_get_mark(cp);
        int r;

        memset(&outcomes[i], 0, sizeof outcomes[i]);
        buf_init(&bodies[i]);
        r = rewrite_method(&M, &targets[i], &bodies[i]);
        meth_free(&M);
        if (r == FATAL)
            goto out;
        if (r == SKIP) {
            buf_free(&bodies[i]);
            cpool_rollback(cp, mark);
        } else {
            outcomes[i].status = RW_REWRITTEN;
            done++;
        }
    }
    if (done == 0) {
        rc = 0;
        goto out;
    }
    /* header, the pool with its additions, then everything else with the
     * rewritten methods in place */
    buf_bytes(&b, c->data, 8);
    buf_u2(&b, cpool_count(cp));
    buf_bytes(&b, c->data + 10, c->cp_end - 10);
    cpadd = cpool_added(cp, &cplen);
    buf_bytes(&b, cpadd, cplen);
    buf_bytes(&b, c->data + c->cp_end, c->methods_off + 2 - c->cp_end);
    for (i = 0; i < c->n_methods; i++) {
        const cf_member *m = &c->methods[i];
        int32_t t = which[i];

        if (t >= 0 && outcomes[t].status == RW_REWRITTEN)
            buf_bytes(&b, bodies[t].data, bodies[t].len);
        else
            buf_bytes(&b, c->data + m->off, m->end - m->off);
    }
    buf_bytes(&b, c->data + c->attrs_off, c->len - c->attrs_off);
    *out = buf_steal(&b, out_len);
    if (*out == NULL) {
        mct_err_set(err, MCT_E_NOMEM, "out of memory writing %s", c->name);
        goto out;
    }
    rc = 0;
out:
    if (bodies)
        for (i = 0; i < n; i++)
            buf_free(&bodies[i]);
    free(bodies);
    free(which);
    cpool_free(cp);
    sm_free(sm);
    buf_free(&b);
    return rc;
}
