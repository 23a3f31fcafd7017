/* test_rewrite.c — the rewriter, the StackMapTable codec and simulator, and
 * the constant pool additions, without a JVM: hand-checked layouts of small
 * assembled methods (code, exception table, line and local tables, frames),
 * switch padding at every alignment, widening to goto_w with its new frame,
 * the skip reasons and argument errors, and a structural comparison of every
 * javac-built fixture method before and after. rw_jvm.sh runs the same
 * fixtures in JVMs. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "bytecode.h"
#include "check.h"
#include "classasm.h"
#include "classfile.h"
#include "cpool.h"
#include "handoff.h"
#include "rewrite.h"
#include "stackmap.h"

static const rw_probes probes = {"test/Probe", "enter", "exit", "fail", 0, NULL, 0};
static const rw_probes receiver_probes = {"test/Probe", "enterOn", "exit", "fail", 1, NULL, 0};

/* One rewrite: the input bytes, the outcome, the output and its view. */
struct rw {
    uint8_t *in;
    size_t in_len;
    cf_class *c;
    uint8_t *out;
    size_t out_len;
    cf_class *oc;
    rw_outcome o;
    int rc;
    mct_err err;
};

static void rw_done(struct rw *r)
{
    cf_free(r->oc);
    cf_free(r->c);
    free(r->out);
    free(r->in);
    memset(r, 0, sizeof *r);
}

/* Rewrites method index m of the class in (owned by r) with id and p. */
static int rw_run_with(struct rw *r, uint8_t *in, size_t len, uint16_t m, int32_t id, const rw_probes *p)
{
    rw_target t = {.method = m, .id = id, .probes = p};

    memset(r, 0, sizeof *r);
    r->in = in;
    r->in_len = len;
    r->c = in ? cf_parse(in, len, &r->err) : NULL;
    if (r->c == NULL) {
        fprintf(stderr, "input does not parse: %s\n", in ? r->err.msg : "assembly failed");
        check_failures++;
        return -1;
    }
    r->rc = rw_rewrite(r->c, &t, 1, &r->o, &r->out, &r->out_len, &r->err);
    if (r->rc == 0 && r->out != NULL) {
        r->oc = cf_parse(r->out, r->out_len, &r->err);
        if (r->oc == NULL) {
            fprintf(stderr, "output does not parse: %s\n", r->err.msg);
            check_failures++;
            return -1;
        }
        if (r->oc->methods[m].code == NULL ||
            bc_scan(r->oc->methods[m].code->code, r->oc->methods[m].code->code_len, NULL, &r->err) < 0) {
            fprintf(stderr, "output code does not scan: %s\n", r->err.msg);
            check_failures++;
            return -1;
        }
    }
    return 0;
}

static int rw_run(struct rw *r, uint8_t *in, size_t len, uint16_t m, int32_t id)
{
    return rw_run_with(r, in, len, m, id, &probes);
}

/* Builds a class T (version major) with one static method "m" desc. */
static uint8_t *one_method(uint16_t major, uint16_t access, const char *desc, const uint8_t *code, uint32_t n,
                           uint16_t max_stack, uint16_t max_locals, const cf_handler *h, uint16_t nh,
                           const mct_buf *attrs, uint16_t n_attrs, size_t *len, ca_class *pre)
{
    ca_class a;
    ca_code c = {.code = code, .len = n, .max_stack = max_stack, .max_locals = max_locals,
                 .handlers = h, .n_handlers = nh};

    if (pre)
        a = *pre;
    else
        ca_init(&a, "T", "java/lang/Object", major);
    if (attrs) {
        c.attrs = attrs->data;
        c.attrs_len = attrs->len;
        c.n_attrs = n_attrs;
    }
    ca_method(&a, access, "m", desc, code ? &c : NULL);
    return ca_finish(&a, len);
}

static uint16_t u2at(const uint8_t *p)
{
    return buf_get_u2(p);
}

/* The info of attribute name of the Code of m, or NULL. */
static const uint8_t *code_attr(const cf_class *c, const cf_member *m, const char *name, uint32_t *len)
{
    const cf_attr *a = cf_find_attr(m->code->attrs, m->code->n_attrs, name);

    if (a == NULL)
        return NULL;
    *len = a->len;
    return cf_attr_info(c, a);
}

/* --- a hand-checked layout ---------------------------------------------------- */

/* oc's code is want's n bytes, but for the constant pool indexes of
 * invokestatic, which the tests check by name. */
static void check_code(const cf_code *oc, const uint8_t *want, size_t n)
{
    size_t i;

    CHECK_INT(oc->code_len, n);
    for (i = 0; i < n && i < oc->code_len; i++) {
        if (i >= 3 && (want[i - 2] == BC_INVOKESTATIC || want[i - 1] == BC_INVOKESTATIC))
            continue;
        if (oc->code[i] != want[i]) {
            fprintf(stderr, "code[%zu] = 0x%02x, want 0x%02x\n", i, oc->code[i], want[i]);
            check_failures++;
        }
    }
}

static void test_layout(void)
{
    /* static int m(int x) { return x == 0 ? 2 : 1; } as
     *   0 iload_0; 1 ifeq 6; 4 iconst_1; 5 ireturn; 6 iconst_2; 7 ireturn */
    static const uint8_t code[] = {0x1a, BC_IFEQ, 0, 5, 0x04, 0xac, 0x05, 0xac};
    static const uint8_t smt[] = {0, 1, 6};
    static const uint8_t want[] = {
        BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0,       /* 0: entry probe */
        0x1a, BC_IFEQ, 0, 10, 0x04,                /* 5: iload_0; 6: ifeq 16; 9: iconst_1 */
        BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0, 0xac, /* 10: exit probe; 15: ireturn */
        0x05,                                      /* 16: iconst_2 */
        BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0, 0xac, /* 17: exit probe; 22: ireturn */
        BC_DUP, BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0, BC_ATHROW /* 23: catch-all */
    };
    uint8_t lnt[14], lvt[12];
    ca_class a;
    mct_buf attrs;
    struct rw r;
    size_t len;
    uint8_t *d;
    const cf_code *oc;
    const uint8_t *p;
    uint32_t plen;
    cf_ref ref;

    ca_init(&a, "T", "java/lang/Object", 52);
    buf_init(&attrs);
    ca_attr(&a, &attrs, "StackMapTable", smt, sizeof smt);
    memcpy(lnt, (uint8_t[]){0, 3, 0, 0, 0, 10, 0, 4, 0, 11, 0, 6, 0, 12}, sizeof lnt);
    ca_attr(&a, &attrs, "LineNumberTable", lnt, sizeof lnt);
    memcpy(lvt, (uint8_t[]){0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0}, sizeof lvt);
    lvt[6] = 0;
    lvt[7] = (uint8_t)ca_utf8(&a, "x");
    lvt[9] = (uint8_t)ca_utf8(&a, "I");
    ca_attr(&a, &attrs, "LocalVariableTable", lvt, sizeof lvt);
    d = one_method(52, CF_ACC_STATIC, "(I)I", code, sizeof code, 1, 1, NULL, 0, &attrs, 3, &len, &a);
    buf_free(&attrs);
    if (rw_run(&r, d, len, 0, 7) < 0)
        goto out;
    CHECK_INT(r.rc, 0);
    CHECK_INT(r.o.status, RW_REWRITTEN);
    CHECK_INT(r.o.old_len, 8);
    CHECK_INT(r.o.new_len, sizeof want);
    CHECK_INT(r.o.widened, 0);
    CHECK_INT(r.o.new_frames, 1);
    oc = r.oc->methods[0].code;
    CHECK_INT(oc->code_len, sizeof want);
    CHECK_INT(oc->max_stack, 3);
    CHECK_INT(oc->max_locals, 1);
    check_code(oc, want, sizeof want);
    CHECK(cf_member_ref(r.oc, u2at(oc->code + 3), &ref) == 0 && strcmp(ref.name, "enter") == 0 &&
          strcmp(ref.owner, "test/Probe") == 0 && strcmp(ref.desc, "(I)V") == 0);
    CHECK(cf_member_ref(r.oc, u2at(oc->code + 13), &ref) == 0 && strcmp(ref.name, "exit") == 0);
    CHECK(cf_member_ref(r.oc, u2at(oc->code + 27), &ref) == 0 && strcmp(ref.name, "fail") == 0 &&
          strcmp(ref.desc, "(Ljava/lang/Throwable;I)V") == 0);
    CHECK_INT(oc->n_handlers, 1);
    CHECK_INT(oc->handlers[0].start, 5);
    CHECK_INT(oc->handlers[0].end, 23);
    CHECK_INT(oc->handlers[0].handler, 23);
    CHECK_INT(oc->handlers[0].catch_type, 0);
    /* lines: pc 0 stays 0, the others follow their instructions */
    p = code_attr(r.oc, &r.oc->methods[0], "LineNumberTable", &plen);
    CHECK(p != NULL && plen == 14);
    if (p) {
        CHECK_INT(u2at(p + 2), 0);
        CHECK_INT(u2at(p + 4), 10);
        CHECK_INT(u2at(p + 6), 9);
        CHECK_INT(u2at(p + 8), 11);
        CHECK_INT(u2at(p + 10), 16);
        CHECK_INT(u2at(p + 12), 12);
    }
    /* x: from 0 over the whole old code */
    p = code_attr(r.oc, &r.oc->methods[0], "LocalVariableTable", &plen);
    CHECK(p != NULL && plen == 12);
    if (p) {
        CHECK_INT(u2at(p + 2), 0);
        CHECK_INT(u2at(p + 4), 23);
    }
    /* frames: same_frame at 16, then the handler's full_frame */
    p = code_attr(r.oc, &r.oc->methods[0], "StackMapTable", &plen);
    CHECK(p != NULL && plen == 13);
    if (p && plen == 13) {
        CHECK_INT(u2at(p), 2);
        CHECK_INT(p[2], 16);
        CHECK_INT(p[3], 255);
        CHECK_INT(u2at(p + 4), 6);
        CHECK_INT(u2at(p + 6), 0);
        CHECK_INT(u2at(p + 8), 1);
        CHECK_INT(p[10], SM_OBJECT);
        CHECK_STR(cf_class_name(r.oc, u2at(p + 11)), "java/lang/Throwable");
    }
out:
    rw_done(&r);
}

/* rw_probes.keep: enter's answer goes into a new local (the old
 * max_locals), which each exit loads and every frame holds as an Integer;
 * the local's store and load take their short, operand and wide forms. */
static void test_kept(void)
{
    static const rw_probes kept = {"test/Probe", "enter", "exit", "fail", 0, NULL, 1};
    /* test_layout's method: its frame at 6 gains the local */
    static const uint8_t code[] = {0x1a, BC_IFEQ, 0, 5, 0x04, 0xac, 0x05, 0xac};
    static const uint8_t smt[] = {0, 1, 6};
    static const uint8_t want[] = {
        BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0, 0x3c,       /* 0: entry probe; 5: istore_1 */
        0x1a, BC_IFEQ, 0, 11, 0x04,                      /* 6: iload_0; 7: ifeq 18; 10: iconst_1 */
        0x1b, BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0, 0xac, /* 11: iload_1; exit probe; 17: ireturn */
        0x05,                                            /* 18: iconst_2 */
        0x1b, BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0, 0xac, /* 19: iload_1; exit probe; 25: ireturn */
        BC_DUP, BC_BIPUSH, 7, BC_INVOKESTATIC, 0, 0, BC_ATHROW /* 26: catch-all */
    };
    static const struct {
        uint16_t max_locals;
        uint8_t store[4], load[4];
        uint32_t len;
    } forms[] = {{4, {BC_ISTORE, 4}, {BC_ILOAD, 4}, 2}, {300, {BC_WIDE, BC_ISTORE, 1, 44}, {BC_WIDE, BC_ILOAD, 1, 44}, 4}};
    static const uint8_t ret[] = {BC_RETURN};
    ca_class a;
    mct_buf attrs;
    struct rw r;
    size_t len, i;
    uint8_t *d;
    const cf_code *oc;
    const uint8_t *p;
    uint32_t plen;
    cf_ref ref;

    ca_init(&a, "T", "java/lang/Object", 52);
    buf_init(&attrs);
    ca_attr(&a, &attrs, "StackMapTable", smt, sizeof smt);
    d = one_method(52, CF_ACC_STATIC, "(I)I", code, sizeof code, 1, 1, NULL, 0, &attrs, 1, &len, &a);
    buf_free(&attrs);
    if (rw_run_with(&r, d, len, 0, 7, &kept) == 0 && r.oc) {
        CHECK_INT(r.o.status, RW_REWRITTEN);
        oc = r.oc->methods[0].code;
        CHECK_INT(oc->code_len, sizeof want);
        CHECK_INT(oc->max_stack, 3);
        CHECK_INT(oc->max_locals, 2);
        check_code(oc, want, sizeof want);
        CHECK(cf_member_ref(r.oc, u2at(oc->code + 3), &ref) == 0 && strcmp(ref.name, "enter") == 0 &&
              strcmp(ref.desc, "(I)I") == 0);
        CHECK(cf_member_ref(r.oc, u2at(oc->code + 15), &ref) == 0 && strcmp(ref.name, "exit") == 0 &&
              strcmp(ref.desc, "(II)V") == 0);
        CHECK_INT(oc->handlers[0].start, 6);
        CHECK_INT(oc->handlers[0].handler, 26);
        /* an append_frame at 18 (x and the kept local), the handler's
         * full_frame without locals at 26 */
        p = code_attr(r.oc, &r.oc->methods[0], "StackMapTable", &plen);
        CHECK(p != NULL && plen == 16);
        if (p && plen == 16) {
            CHECK_INT(u2at(p), 2);
            CHECK_INT(p[2], 252);
            CHECK_INT(u2at(p + 3), 18);
            CHECK_INT(p[5], SM_INTEGER);
            CHECK_INT(p[6], 255);
            CHECK_INT(u2at(p + 7), 7);
            CHECK_INT(u2at(p + 9), 0);
            CHECK_INT(u2at(p + 11), 1);
        }
    }
    rw_done(&r);

    for (i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        d = one_method(52, CF_ACC_STATIC, "()V", ret, sizeof ret, 0, forms[i].max_locals, NULL, 0, NULL, 0, &len,
                       NULL);
        if (rw_run_with(&r, d, len, 0, 7, &kept) == 0 && r.oc) {
            oc = r.oc->methods[0].code;
            CHECK_INT(oc->max_locals, forms[i].max_locals + 1);
            CHECK_INT(oc->max_stack, 3);
            CHECK_INT(oc->code_len, 5 + 2 * forms[i].len + 5 + 1 + 7);
            if (oc->code_len == 5 + 2 * forms[i].len + 5 + 1 + 7) {
                CHECK(memcmp(oc->code + 5, forms[i].store, forms[i].len) == 0);
                CHECK(memcmp(oc->code + 5 + forms[i].len, forms[i].load, forms[i].len) == 0);
                CHECK_INT(oc->code[5 + 2 * forms[i].len + 5], BC_RETURN);
            }
        }
        rw_done(&r);
    }

    /* no local is left */
    d = one_method(52, CF_ACC_STATIC, "()V", ret, sizeof ret, 0, 65535, NULL, 0, NULL, 0, &len, NULL);
    if (rw_run_with(&r, d, len, 0, 7, &kept) == 0) {
        CHECK_INT(r.o.status, RW_SKIPPED);
        CHECK(strstr(r.o.reason, "max_locals is already 65535") != NULL);
    }
    rw_done(&r);
}

/* A branch to pc 0 lands after the entry probe; a branch to a return runs
 * its exit probe; a constructor's catch-all starts after super(). */
static void test_targets_and_ctor(void)
{
    /* version 49: 0 iload_0; 1 ifeq 7; 4 iinc 0 -1; 7... no: a loop to 0
     *   0 iinc 0 -1; 3 iload_0; 4 ifne 0; 7 goto 10; 10 return */
    static const uint8_t loop[] = {BC_IINC, 0, 0xff, 0x1a, BC_IFNE, 0xff, 0xfc, BC_GOTO, 0, 3, BC_RETURN};
    static const uint8_t ctor[] = {0x2a, BC_INVOKESPECIAL, 0, 0, 0x2a, 0x57, BC_RETURN};
    struct rw r;
    size_t len;
    uint8_t *d;
    const cf_code *oc;
    bc_insn in;
    mct_err err;
    ca_class a;
    uint8_t code[sizeof ctor];
    uint16_t init;

    d = one_method(49, CF_ACC_STATIC, "(I)V", loop, sizeof loop, 1, 1, NULL, 0, NULL, 0, &len, NULL);
    if (rw_run(&r, d, len, 0, 3) == 0 && r.oc) {
        oc = r.oc->methods[0].code;
        /* entry probe 0..3, iinc at 4, iload_0 at 7, ifne at 8 -> 4 */
        CHECK(bc_decode(oc->code, oc->code_len, 8, &in, &err) == 0 && in.op == BC_IFNE && in.target == 4);
        /* goto at 11 -> the exit probe of the return at 14 */
        CHECK(bc_decode(oc->code, oc->code_len, 11, &in, &err) == 0 && in.op == BC_GOTO && in.target == 14);
        CHECK_INT(oc->code[14], 0x06); /* iconst_3 */
        CHECK_INT(oc->code[18], BC_RETURN);
        CHECK_INT(r.oc->major, 49);
        CHECK(cf_find_attr(oc->attrs, oc->n_attrs, "StackMapTable") == NULL);
    }
    rw_done(&r);

    /* <init>()V: aload_0; invokespecial Object.<init>; aload_0; pop; return */
    ca_init(&a, "T", "java/lang/Object", 52);
    init = ca_methodref(&a, "java/lang/Object", "<init>", "()V");
    memcpy(code, ctor, sizeof ctor);
    code[2] = (uint8_t)(init >> 8);
    code[3] = (uint8_t)init;
    {
        ca_code c = {.code = code, .len = sizeof code, .max_stack = 1, .max_locals = 1};

        ca_method(&a, 0, "<init>", "()V", &c);
    }
    d = ca_finish(&a, &len);
    if (rw_run(&r, d, len, 0, 1) == 0 && r.oc) {
        oc = r.oc->methods[0].code;
        CHECK_INT(r.o.status, RW_REWRITTEN);
        /* entry probe 0..3, aload_0 4, invokespecial 5, aload_0 8: the range starts there */
        CHECK_INT(oc->handlers[0].start, 8);
        CHECK_INT(oc->handlers[0].end, oc->handlers[0].handler);
    }
    rw_done(&r);
}

/* --- switches ---------------------------------------------------------------- */

/* nops, then iload_0 and a switch of 3 cases (table: 0..2 or lookup:
 * -5, 7, 1000) to blocks "iconst_<k>; ireturn", default "iconst_m1; ireturn". */
static uint8_t *switch_class(int lookup, int nops, size_t *len)
{
    mct_buf b;
    uint32_t pc, sw, blocks, k;
    uint8_t *d;

    buf_init(&b);
    for (k = 0; k < (uint32_t)nops; k++)
        buf_u1(&b, BC_NOP);
    buf_u1(&b, 0x1a);
    sw = (uint32_t)b.len;
    buf_u1(&b, lookup ? BC_LOOKUPSWITCH : BC_TABLESWITCH);
    while (b.len % 4)
        buf_u1(&b, 0);
    pc = (uint32_t)b.len;
    blocks = pc + (lookup ? 8 + 3 * 8 : 12 + 3 * 4);
    buf_u4(&b, blocks + 3 * 2 - sw); /* default: the fourth block */
    if (lookup) {
        static const int32_t keys[] = {-5, 7, 1000};

        buf_u4(&b, 3);
        for (k = 0; k < 3; k++) {
            buf_u4(&b, (uint32_t)keys[k]);
            buf_u4(&b, blocks + 2 * k - sw);
        }
    } else {
        buf_u4(&b, 0);
        buf_u4(&b, 2);
        for (k = 0; k < 3; k++)
            buf_u4(&b, blocks + 2 * k - sw);
    }
    for (k = 0; k < 3; k++) {
        buf_u1(&b, (uint8_t)(BC_ICONST_0 + k));
        buf_u1(&b, 0xac);
    }
    buf_u1(&b, 0x02);
    buf_u1(&b, 0xac);
    d = one_method(49, CF_ACC_STATIC, "(I)I", b.data, (uint32_t)b.len, 1, 1, NULL, 0, NULL, 0, len, NULL);
    buf_free(&b);
    return d;
}

static void test_switches(void)
{
    static const int32_t ids[] = {0, 10, 1000, 100000};
    int lookup, nops, i, seen[4] = {0};

    for (lookup = 0; lookup < 2; lookup++)
        for (nops = 0; nops < 4; nops++)
            for (i = 0; i < 4; i++) {
                struct rw r;
                size_t len;
                uint8_t *d = switch_class(lookup, nops, &len);
                const cf_code *oc;
                bc_insn in;
                mct_err err;
                uint32_t pc, k, pad;

                if (rw_run(&r, d, len, 0, ids[i]) < 0 || r.oc == NULL) {
                    rw_done(&r);
                    continue;
                }
                oc = r.oc->methods[0].code;
                /* find the switch */
                for (pc = 0; pc < oc->code_len; pc += in.len)
                    if (bc_decode(oc->code, oc->code_len, pc, &in, &err) < 0 || in.form == BC_FORM_TABLESWITCH ||
                        in.form == BC_FORM_LOOKUPSWITCH)
                        break;
                CHECK(pc < oc->code_len && (in.op == BC_LOOKUPSWITCH) == lookup);
                if (pc >= oc->code_len) {
                    rw_done(&r);
                    continue;
                }
                seen[(pc + 1) % 4] = 1;
                pad = (4 - (pc + 1) % 4) % 4;
                for (k = 1; k <= pad; k++)
                    CHECK_INT(oc->code[pc + k], 0);
                CHECK_INT(oc->code[in.dflt], 0x02);
                for (k = 0; k < in.ntargets; k++)
                    CHECK_INT(oc->code[bc_switch_target(oc->code, &in, k)], BC_ICONST_0 + k);
                if (lookup) {
                    CHECK_INT(bc_switch_key(oc->code, &in, 0), -5);
                    CHECK_INT(bc_switch_key(oc->code, &in, 2), 1000);
                } else {
                    CHECK_INT(in.low, 0);
                    CHECK_INT(in.high, 2);
                }
                rw_done(&r);
            }
    /* every alignment of the new switch happened */
    CHECK(seen[0] && seen[1] && seen[2] && seen[3]);
}

/* --- widening ---------------------------------------------------------------- */

/* Appends a StackMapTable of same_frames at the given pcs. */
static void same_frames(ca_class *a, mct_buf *attrs, const uint32_t *pcs, size_t n)
{
    mct_buf t;
    size_t i;

    buf_init(&t);
    buf_u2(&t, (uint16_t)n);
    for (i = 0; i < n; i++) {
        uint32_t delta = i == 0 ? pcs[0] : pcs[i] - pcs[i - 1] - 1;

        if (delta < 64) {
            buf_u1(&t, (uint8_t)delta);
        } else {
            buf_u1(&t, 251);
            buf_u2(&t, (uint16_t)delta);
        }
    }
    ca_attr(a, attrs, "StackMapTable", t.data, t.len);
    buf_free(&t);
}

/* static int m(int x), version 52: a conditional at pc 1 (forward=1) or at
 * the end (forward=0, back to pc 0) spans 32700 bytes holding 20 guarded
 * returns, so that the exit probes push it past 32767. */
static uint8_t *wide_class(int forward, size_t *len)
{
    mct_buf b, attrs;
    uint32_t pcs[32], n = 0, k, guard_every = 10860 / 20, g = 0;
    ca_class a;
    uint8_t *d;

    buf_init(&b);
    buf_init(&attrs);
    ca_init(&a, "T", "java/lang/Object", 52);
    if (forward) {
        buf_u1(&b, 0x1a);
        buf_u1(&b, BC_IFEQ);
        buf_u2(&b, 3 + 32700);
    } else {
        pcs[n++] = 0; /* the loop head */
    }
    for (k = 0; k < 10860; k++) {
        buf_u1(&b, BC_IINC);
        buf_u1(&b, 0);
        buf_u1(&b, 1);
        if (k % guard_every == guard_every - 1 && g < 20) {
            /* iload_0; ifne +5; iload_0; ireturn */
            buf_u1(&b, 0x1a);
            buf_u1(&b, BC_IFNE);
            buf_u2(&b, 5);
            buf_u1(&b, 0x1a);
            buf_u1(&b, 0xac);
            pcs[n++] = (uint32_t)b.len;
            g++;
        }
    }
    if (forward) {
        pcs[n - 1] = (uint32_t)b.len; /* the last guard's target is the end */
    } else {
        buf_u1(&b, 0x1a);
        buf_u1(&b, BC_IFNE);
        buf_u2(&b, (uint16_t)-(int32_t)(b.len - 1));
    }
    buf_u1(&b, 0x1a);
    buf_u1(&b, 0xac);
    same_frames(&a, &attrs, pcs, n);
    d = one_method(52, CF_ACC_STATIC, "(I)I", b.data, (uint32_t)b.len, 1, 1, NULL, 0, &attrs, 1, len, &a);
    buf_free(&b);
    buf_free(&attrs);
    return d;
}

static void test_widening(void)
{
    int forward;

    for (forward = 0; forward < 2; forward++) {
        struct rw r;
        size_t len, k;
        uint8_t *d = wide_class(forward, &len);
        const cf_code *oc;
        bc_insn in, go;
        mct_err err;
        uint32_t pc;
        sm_ctx *sm;
        sm_list fl;
        int found = 0;

        if (rw_run(&r, d, len, 0, 7) < 0 || r.oc == NULL) {
            rw_done(&r);
            continue;
        }
        CHECK_INT(r.o.status, RW_REWRITTEN);
        CHECK_INT(r.o.widened, 1);
        CHECK_INT(r.o.new_frames, 2);
        oc = r.oc->methods[0].code;
        /* the inverted conditional over a goto_w, and a frame after them */
        for (pc = 0; pc < oc->code_len; pc += in.len) {
            if (bc_decode(oc->code, oc->code_len, pc, &in, &err) < 0)
                break;
            if ((in.flags & BC_F_COND) && in.target == pc + 8 &&
                bc_decode(oc->code, oc->code_len, pc + 3, &go, &err) == 0 && go.op == BC_GOTO_W) {
                found = 1;
                /* forward: to the final iload_0 (then an exit probe, ireturn and
                 * the 7 bytes of the catch-all); backward: after the entry probe */
                CHECK_INT(go.target, forward ? oc->code_len - 14 : 5);
                CHECK_INT(in.op, forward ? BC_IFNE : BC_IFEQ);
                break;
            }
        }
        CHECK(found);
        sm = sm_new(r.oc, &err);
        sm_list_init(&fl, oc->max_locals, oc->max_stack);
        CHECK(sm != NULL && sm_decode(sm, &r.oc->methods[0], cf_find_attr(oc->attrs, oc->n_attrs, "StackMapTable"),
                                      &fl, &err) == 0);
        found = 0;
        for (k = 1; k < fl.n; k++)
            if (fl.f[k].pc == pc + 8) {
                found = 1;
                CHECK_INT(fl.f[k].nlocals, 1);
                CHECK_INT(fl.f[k].locals[0].tag, SM_INTEGER);
                CHECK_INT(fl.f[k].nstack, 0);
            }
        CHECK(found);
        /* frames are all on instructions, the handler's last */
        CHECK_INT(fl.f[fl.n - 1].pc, oc->handlers[oc->n_handlers - 1].handler);
        sm_list_free(&fl);
        sm_free(sm);
        rw_done(&r);
    }
}

/* --- skips and errors ---------------------------------------------------------------- */

static void expect_skip(uint8_t *d, size_t len, uint16_t m, const char *want, int line)
{
    struct rw r;

    if (rw_run(&r, d, len, m, 1) == 0) {
        if (r.rc != 0 || r.o.status != RW_SKIPPED || strstr(r.o.reason, want) == NULL || r.out != NULL) {
            fprintf(stderr, "line %d: rc %d status %d reason \"%s\", want a skip \"%s\"\n", line, r.rc,
                    r.o.status, r.o.reason, want);
            check_failures++;
        }
    }
    rw_done(&r);
}

static void test_skips(void)
{
    static const uint8_t jsr[] = {0x1a, 0x3c, BC_JSR, 0, 5, 0x1b, 0xac, 0x4d, BC_IINC, 1, 1, BC_RET, 2};
    static const uint8_t branchy[] = {0x1a, BC_IFEQ, 0, 5, 0x04, 0xac, 0x05, 0xac};
    static const uint8_t fall_off[] = {BC_NOP};
    mct_buf b;
    size_t len, k;
    uint8_t *d;
    ca_class a;
    uint16_t init;

    d = one_method(49, CF_ACC_STATIC, "(I)I", jsr, sizeof jsr, 1, 3, NULL, 0, NULL, 0, &len, NULL);
    expect_skip(d, len, 0, "uses jsr/ret subroutines", __LINE__);
    d = one_method(52, CF_ACC_ABSTRACT | CF_ACC_PUBLIC, "()V", NULL, 0, 0, 0, NULL, 0, NULL, 0, &len, NULL);
    expect_skip(d, len, 0, "abstract method has no code", __LINE__);
    d = one_method(52, CF_ACC_NATIVE | CF_ACC_STATIC, "()V", NULL, 0, 0, 0, NULL, 0, NULL, 0, &len, NULL);
    expect_skip(d, len, 0, "native method has no code", __LINE__);
    d = one_method(52, CF_ACC_STATIC, "()V", fall_off, sizeof fall_off, 1, 1, NULL, 0, NULL, 0, &len, NULL);
    expect_skip(d, len, 0, "past its end", __LINE__);
    /* version 52 with a branch but no StackMapTable */
    d = one_method(52, CF_ACC_STATIC, "(I)I", branchy, sizeof branchy, 1, 1, NULL, 0, NULL, 0, &len, NULL);
    expect_skip(d, len, 0, "no StackMapTable frame at pc 6", __LINE__);
    /* 13000 returns: the exit probes push the code past 65535 bytes */
    buf_init(&b);
    for (k = 0; k < 13000; k++) {
        buf_u1(&b, BC_ICONST_0);
        buf_u1(&b, 0xac);
    }
    d = one_method(49, CF_ACC_STATIC, "()I", b.data, (uint32_t)b.len, 1, 0, NULL, 0, NULL, 0, &len, NULL);
    buf_free(&b);
    expect_skip(d, len, 0, "over 65535 bytes", __LINE__);

    /* constructors: a branch before super() in version 49; `this` still
     * uninitialized after the first super() in version 52 */
    {
        uint8_t c49[] = {0x1b, BC_IFEQ, 0, 3, 0x2a, BC_INVOKESPECIAL, 0, 0, BC_RETURN};
        uint8_t c52[] = {0x1b, BC_IFEQ, 0, 8, 0x2a, BC_INVOKESPECIAL, 0, 0, BC_RETURN,
                         /* 9: */ 0x2a, BC_INVOKESPECIAL, 0, 0, BC_RETURN};
        mct_buf attrs;
        /* one full_frame at 9: locals [UninitializedThis, int] */
        uint8_t full[] = {0, 1, 255, 0, 9, 0, 2, SM_UNINIT_THIS, SM_INTEGER, 0, 0};

        ca_init(&a, "T", "java/lang/Object", 49);
        init = ca_methodref(&a, "java/lang/Object", "<init>", "()V");
        c49[6] = (uint8_t)(init >> 8);
        c49[7] = (uint8_t)init;
        {
            ca_code c = {.code = c49, .len = sizeof c49, .max_stack = 1, .max_locals = 2};

            ca_method(&a, 0, "<init>", "(I)V", &c);
        }
        d = ca_finish(&a, &len);
        expect_skip(d, len, 0, "branches before its super()", __LINE__);

        ca_init(&a, "T", "java/lang/Object", 52);
        init = ca_methodref(&a, "java/lang/Object", "<init>", "()V");
        c52[6] = c52[11] = (uint8_t)(init >> 8);
        c52[7] = c52[12] = (uint8_t)init;
        buf_init(&attrs);
        ca_attr(&a, &attrs, "StackMapTable", full, sizeof full);
        {
            ca_code c = {.code = c52, .len = sizeof c52, .max_stack = 1, .max_locals = 2,
                         .attrs = attrs.data, .attrs_len = attrs.len, .n_attrs = 1};

            ca_method(&a, 0, "<init>", "(I)V", &c);
        }
        buf_free(&attrs);
        d = ca_finish(&a, &len);
        expect_skip(d, len, 0, "may be uninitialized at pc 9", __LINE__);
    }
}

/* An entry probe that takes the receiver: aload_0 before it, its
 * descriptor (Object, int); a branch to pc 0 lands after both; static
 * methods and constructors have no receiver to give. */
static void test_receiver(void)
{
    /* void m(int x) { while (--x != 0); } as 0 iinc 1 -1; 3 iload_1; 4 ifne 0; 7 return */
    static const uint8_t loop[] = {BC_IINC, 1, 0xff, 0x1b, BC_IFNE, 0xff, 0xfc, BC_RETURN};
    static const uint8_t smt[] = {0, 1, 0};
    static const uint8_t want[] = {
        BC_ALOAD_0, BC_BIPUSH, 9, BC_INVOKESTATIC, 0, 0, /* 0: entry probe */
        BC_IINC, 1, 0xff, 0x1b, BC_IFNE, 0xff, 0xfc,     /* 6: the loop, back to 6 */
        BC_BIPUSH, 9, BC_INVOKESTATIC, 0, 0, BC_RETURN,  /* 13: exit probe; 18: return */
        BC_DUP, BC_BIPUSH, 9, BC_INVOKESTATIC, 0, 0, BC_ATHROW
    };
    static const uint8_t ret[] = {BC_RETURN};
    static const uint8_t ctor[] = {0x2a, BC_INVOKESPECIAL, 0, 0, BC_RETURN};
    struct rw r;
    mct_buf attrs;
    ca_class a;
    size_t len, i;
    uint8_t *d;
    uint16_t init;
    cf_ref ref;

    ca_init(&a, "T", "java/lang/Object", 52);
    buf_init(&attrs);
    ca_attr(&a, &attrs, "StackMapTable", smt, sizeof smt);
    d = one_method(52, CF_ACC_PUBLIC, "(I)V", loop, sizeof loop, 1, 2, NULL, 0, &attrs, 1, &len, &a);
    buf_free(&attrs);
    if (rw_run_with(&r, d, len, 0, 9, &receiver_probes) == 0) {
        const cf_code *oc = r.oc ? r.oc->methods[0].code : NULL;

        CHECK_INT(r.rc, 0);
        CHECK_INT(r.o.status, RW_REWRITTEN);
        CHECK(oc != NULL && oc->code_len == sizeof want);
        for (i = 0; oc != NULL && i < sizeof want && i < oc->code_len; i++) {
            if (i >= 3 && (want[i - 2] == BC_INVOKESTATIC || want[i - 1] == BC_INVOKESTATIC))
                continue;
            if (oc->code[i] != want[i]) {
                fprintf(stderr, "receiver: code[%zu] = 0x%02x, want 0x%02x\n", i, oc->code[i], want[i]);
                check_failures++;
            }
        }
        if (oc != NULL && oc->code_len == sizeof want) {
            CHECK(cf_member_ref(r.oc, u2at(oc->code + 4), &ref) == 0 && strcmp(ref.name, "enterOn") == 0 &&
                  strcmp(ref.desc, "(Ljava/lang/Object;I)V") == 0);
            CHECK(cf_member_ref(r.oc, u2at(oc->code + 16), &ref) == 0 && strcmp(ref.name, "exit") == 0 &&
                  strcmp(ref.desc, "(I)V") == 0);
            CHECK_INT(oc->max_stack, 3);
            CHECK_INT(oc->handlers[0].start, 6);
        }
    }
    rw_done(&r);

    d = one_method(52, CF_ACC_STATIC, "()V", ret, sizeof ret, 0, 0, NULL, 0, NULL, 0, &len, NULL);
    if (rw_run_with(&r, d, len, 0, 1, &receiver_probes) == 0)
        CHECK(r.rc == 0 && r.o.status == RW_SKIPPED && strstr(r.o.reason, "a static method has no receiver") &&
              r.out == NULL);
    rw_done(&r);

    ca_init(&a, "T", "java/lang/Object", 52);
    init = ca_methodref(&a, "java/lang/Object", "<init>", "()V");
    {
        uint8_t c[sizeof ctor];
        ca_code cc = {.code = c, .len = sizeof c, .max_stack = 1, .max_locals = 1};

        memcpy(c, ctor, sizeof c);
        c[2] = (uint8_t)(init >> 8);
        c[3] = (uint8_t)init;
        ca_method(&a, 0, "<init>", "()V", &cc);
        d = ca_finish(&a, &len);
    }
    if (rw_run_with(&r, d, len, 0, 1, &receiver_probes) == 0)
        CHECK(r.rc == 0 && r.o.status == RW_SKIPPED && strstr(r.o.reason, "a constructor has no receiver") &&
              r.out == NULL);
    rw_done(&r);
}

/* Hand-off sites (--follow-async): which invokes are sites, and their
 * task wrapped before them (swapped around an argument that follows it)
 * and the probe after them. */
static void test_handoff(void)
{
    static const struct {
        const char *owner, *name, *desc;
        int kind, swap, own;        /* own: the owner is an application executor type */
    } sites[] = {
        {"java/util/concurrent/ExecutorService", "submit", "(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/Future;", HO_CALL, 0, 0},
        {"java/util/concurrent/ExecutorService", "submit", "(Ljava/lang/Runnable;Ljava/lang/Object;)Ljava/util/concurrent/Future;", HO_RUN, 1, 0},
        {"java/util/concurrent/Executor", "execute", "(Ljava/lang/Runnable;)V", HO_RUN, 0, 0},
        {"java/util/concurrent/CompletableFuture", "thenApplyAsync", "(Ljava/util/function/Function;Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;", HO_APPLY, 1, 0},
        {"java/util/concurrent/CompletionStage", "thenAcceptAsync", "(Ljava/util/function/Consumer;)Ljava/util/concurrent/CompletionStage;", HO_ACCEPT, 0, 0},
        {"java/util/concurrent/CompletableFuture", "supplyAsync", "(Ljava/util/function/Supplier;)Ljava/util/concurrent/CompletableFuture;", HO_GET, 0, 0},
        {"java/lang/Thread", "<init>", "(Ljava/lang/Runnable;Ljava/lang/String;)V", HO_RUN, 1, 0},
        {"java/lang/Thread$Builder$OfVirtual", "start", "(Ljava/lang/Runnable;)Ljava/lang/Thread;", HO_RUN, 0, 0},
        {"jakarta/servlet/AsyncContext", "start", "(Ljava/lang/Runnable;)V", HO_RUN, 0, 0},
        {"java/util/concurrent/StructuredTaskScope", "fork", "(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/StructuredTaskScope$Subtask;", HO_CALL, 0, 0},
        {"com/shop/Pool", "execute", "(Ljava/lang/Runnable;)V", -1, 0, 0},
        {"java/util/concurrent/Executor", "execute", "(Ljava/lang/Object;)V", -1, 0, 0},
        {"java/util/concurrent/CompletableFuture", "thenApply", "(Ljava/util/function/Function;)Ljava/util/concurrent/CompletableFuture;", -1, 0, 0},
        {"java/util/concurrent/ForkJoinPool", "execute", "(Ljava/util/concurrent/ForkJoinTask;)V", -1, 0, 0},
        {"java/util/concurrent/CompletableFuture", "thenCombineAsync", "(Ljava/util/concurrent/CompletionStage;Ljava/util/function/BiFunction;)Ljava/util/concurrent/CompletableFuture;", -1, 0, 0},
        {"java/util/concurrent/ExecutorService", "submit", "(Ljava/lang/Runnable;Ljava/lang/Object;Ljava/lang/Object;)V", -1, 0, 0},
        {"java/util/concurrent/ExecutorService", "submit", "(Ljava/lang/Runnable;J)V", -1, 0, 0},
        {"java/lang/Thread", "start", "()V", -1, 0, 0},
        {"com/shop/Pool", "execute", "(Ljava/lang/Runnable;)V", HO_RUN, 0, 1},
        {"com/shop/Pool", "submit", "(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/Future;", HO_CALL, 0, 1},
        {"com/shop/Pool", "shutdown", "()V", -1, 0, 1},
        /* a stream operation's one function: the stream kinds, never the executors' */
        {"java/util/stream/Stream", "map", "(Ljava/util/function/Function;)Ljava/util/stream/Stream;", HO_S_APPLY, 0, 0},
        {"java/util/stream/Stream", "flatMap", "(Ljava/util/function/Function;)Ljava/util/stream/Stream;", HO_S_APPLY, 0, 0},
        {"java/util/stream/Stream", "filter", "(Ljava/util/function/Predicate;)Ljava/util/stream/Stream;", HO_S_TEST, 0, 0},
        {"java/util/stream/Stream", "anyMatch", "(Ljava/util/function/Predicate;)Z", HO_S_TEST, 0, 0},
        {"java/util/stream/Stream", "forEach", "(Ljava/util/function/Consumer;)V", HO_S_ACCEPT, 0, 0},
        {"java/util/stream/Stream", "peek", "(Ljava/util/function/Consumer;)Ljava/util/stream/Stream;", HO_S_ACCEPT, 0, 0},
        {"java/util/stream/Stream", "mapToInt", "(Ljava/util/function/ToIntFunction;)Ljava/util/stream/IntStream;", HO_S_TO_INT, 0, 0},
        {"java/util/stream/Stream", "mapToLong", "(Ljava/util/function/ToLongFunction;)Ljava/util/stream/LongStream;", HO_S_TO_LONG, 0, 0},
        {"java/util/stream/Stream", "mapToDouble", "(Ljava/util/function/ToDoubleFunction;)Ljava/util/stream/DoubleStream;", HO_S_TO_DOUBLE, 0, 0},
        /* the other functions: the last argument, or the accumulator before its combiner */
        {"java/util/stream/IntStream", "mapToObj", "(Ljava/util/function/IntFunction;)Ljava/util/stream/Stream;", HO_S_I_APPLY, 0, 0},
        {"java/util/stream/Stream", "reduce", "(Ljava/lang/Object;Ljava/util/function/BinaryOperator;)Ljava/lang/Object;", HO_S_BINARY, 0, 0},
        {"java/util/stream/Stream", "reduce", "(Ljava/util/function/BinaryOperator;)Ljava/util/Optional;", HO_S_BINARY, 0, 0},
        {"java/util/stream/Stream", "reduce", "(Ljava/lang/Object;Ljava/util/function/BiFunction;Ljava/util/function/BinaryOperator;)Ljava/lang/Object;", HO_S_BI_APPLY, 1, 0},
        {"java/util/stream/Stream", "collect", "(Ljava/util/function/Supplier;Ljava/util/function/BiConsumer;Ljava/util/function/BiConsumer;)Ljava/lang/Object;", HO_S_BI_ACCEPT, 1, 0},
        {"java/util/stream/Stream", "sorted", "(Ljava/util/Comparator;)Ljava/util/stream/Stream;", HO_S_COMPARE, 0, 0},
        {"java/util/stream/Stream", "max", "(Ljava/util/Comparator;)Ljava/util/Optional;", HO_S_COMPARE, 0, 0},
        {"java/util/stream/IntStream", "map", "(Ljava/util/function/IntUnaryOperator;)Ljava/util/stream/IntStream;", HO_S_I_UNARY, 0, 0},
        {"java/util/stream/IntStream", "filter", "(Ljava/util/function/IntPredicate;)Ljava/util/stream/IntStream;", HO_S_I_TEST, 0, 0},
        {"java/util/stream/IntStream", "mapToLong", "(Ljava/util/function/IntToLongFunction;)Ljava/util/stream/LongStream;", HO_S_I_TO_LONG, 0, 0},
        {"java/util/stream/IntStream", "reduce", "(ILjava/util/function/IntBinaryOperator;)I", HO_S_I_BINARY, 0, 0},
        {"java/util/stream/IntStream", "collect", "(Ljava/util/function/Supplier;Ljava/util/function/ObjIntConsumer;Ljava/util/function/BiConsumer;)Ljava/lang/Object;", HO_S_I_OBJ_ACCEPT, 1, 0},
        {"java/util/stream/LongStream", "forEach", "(Ljava/util/function/LongConsumer;)V", HO_S_L_ACCEPT, 0, 0},
        {"java/util/stream/LongStream", "mapToInt", "(Ljava/util/function/LongToIntFunction;)Ljava/util/stream/IntStream;", HO_S_L_TO_INT, 0, 0},
        {"java/util/stream/LongStream", "reduce", "(JLjava/util/function/LongBinaryOperator;)J", HO_S_L_BINARY, 0, 0},
        {"java/util/stream/DoubleStream", "anyMatch", "(Ljava/util/function/DoublePredicate;)Z", HO_S_D_TEST, 0, 0},
        {"java/util/stream/DoubleStream", "map", "(Ljava/util/function/DoubleUnaryOperator;)Ljava/util/stream/DoubleStream;", HO_S_D_UNARY, 0, 0},
        {"java/util/stream/DoubleStream", "mapToObj", "(Ljava/util/function/DoubleFunction;)Ljava/util/stream/Stream;", HO_S_D_APPLY, 0, 0},
        {"java/util/stream/IntStream", "map", "(Ljava/util/function/IntUnaryOperator;J)Ljava/util/stream/IntStream;", -1, 0, 0},
        {"java/util/stream/IntStream", "map", "([Ljava/util/function/IntUnaryOperator;)Ljava/util/stream/IntStream;", -1, 0, 0},
        {"java/util/stream/IntStream", "map", "(Ljava/util/function/IntUnaryOperator", -1, 0, 0},
        {"java/util/concurrent/Executor", "execute", "(Ljava/util/function/IntConsumer;)V", -1, 0, 0},
        {"java/util/stream/Stream", "collect", "(Ljava/util/stream/Collector;)Ljava/lang/Object;", -1, 0, 0},
        {"java/util/stream/Stream", "generate", "(Ljava/util/function/Supplier;)Ljava/util/stream/Stream;", -1, 0, 0},
        {"java/util/stream/Stream", "map", "(Ljava/util/function/Function;Ljava/lang/Object;)Ljava/util/stream/Stream;", -1, 0, 0},
        {"java/util/Optional", "map", "(Ljava/util/function/Function;)Ljava/util/Optional;", -1, 0, 0},
        {"java/util/stream/Collectors", "toMap", "(Ljava/util/function/Function;Ljava/util/function/Function;)Ljava/util/stream/Collector;", -1, 0, 0},
    };
    static const int32_t ids[HO_KINDS] = {20, 21, 22, 23, 24};
    /* static void m(ThreadPoolExecutor e, Runnable r, Supplier s):
     * e.execute(r); CompletableFuture.supplyAsync(s, e); (execute's
     * handed takes the number, supplyAsync's handedFuture its future too) */
    uint8_t code[] = {
        BC_ALOAD_0, 0x2b, BC_INVOKEVIRTUAL, 0, 0,   /* 0 */
        0x2c, BC_ALOAD_0, BC_INVOKESTATIC, 0, 0,          /* 5: aload_2 */
        BC_POP, BC_RETURN,                                /* 10 */
    };
    static const uint8_t want[] = {
        BC_BIPUSH, 9, BC_INVOKESTATIC, 0, 0,                                   /* 0: entry probe */
        BC_ALOAD_0, 0x2b, BC_BIPUSH, 20, BC_INVOKESTATIC, 0, 0,          /* 5: wrapRun */
        BC_INVOKEVIRTUAL, 0, 0, BC_BIPUSH, 20, BC_INVOKESTATIC, 0, 0,          /* 12: execute, handed */
        0x2c, BC_ALOAD_0, BC_SWAP, BC_BIPUSH, 22, BC_INVOKESTATIC, 0, 0, BC_SWAP, /* 20: wrapGet */
        BC_INVOKESTATIC, 0, 0, BC_DUP, BC_BIPUSH, 22, BC_INVOKESTATIC, 0, 0,   /* 29: supplyAsync, handedFuture */
        BC_POP, BC_BIPUSH, 9, BC_INVOKESTATIC, 0, 0, BC_RETURN,                /* 38: exit probe */
        BC_DUP, BC_BIPUSH, 9, BC_INVOKESTATIC, 0, 0, BC_ATHROW,
    };
    static const struct {
        size_t at;
        const char *name;
    } refs[] = {{10, "wrapRun"}, {13, "execute"}, {18, "handed"}, {26, "wrapGet"}, {30, "supplyAsync"}, {36, "handedFuture"}};
    rw_target t = {.method = 0, .id = 9, .probes = &probes, .handoff = ids};
    ca_class a;
    uint16_t ex, sa;
    size_t len, i;
    uint8_t *d;
    cf_class *c, *oc = NULL;
    uint8_t *out = NULL;
    size_t out_len;
    rw_outcome o;
    mct_err e;
    cf_ref ref;

    for (i = 0; i < sizeof sites / sizeof sites[0]; i++) {
        int swap = -1, k = ho_site(sites[i].owner, sites[i].name, sites[i].desc, sites[i].own, &swap);

        if (k != sites[i].kind || (k >= 0 && swap != sites[i].swap)) {
            fprintf(stderr, "ho_site(%s.%s%s) = %d swap %d, want %d swap %d\n", sites[i].owner, sites[i].name,
                    sites[i].desc, k, swap, sites[i].kind, sites[i].swap);
            check_failures++;
        }
    }
    CHECK(ho_returns_future("(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/Future;"));
    CHECK(ho_returns_future("(Ljava/util/function/Supplier;)Ljava/util/concurrent/CompletableFuture;"));
    CHECK(ho_returns_future("(Ljava/util/function/Function;)Ljava/util/concurrent/CompletionStage;"));
    CHECK(!ho_returns_future("(Ljava/lang/Runnable;)V"));
    CHECK(!ho_returns_future("(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/StructuredTaskScope$Subtask;"));
    ca_init(&a, "T", "java/lang/Object", 52);
    ex = ca_methodref(&a, "java/util/concurrent/ThreadPoolExecutor", "execute", "(Ljava/lang/Runnable;)V");
    sa = ca_methodref(&a, "java/util/concurrent/CompletableFuture", "supplyAsync",
                      "(Ljava/util/function/Supplier;Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;");
    code[3] = (uint8_t)(ex >> 8);
    code[4] = (uint8_t)ex;
    code[8] = (uint8_t)(sa >> 8);
    code[9] = (uint8_t)sa;
    {
        ca_code cc = {.code = code, .len = sizeof code, .max_stack = 2, .max_locals = 3};

        ca_method(&a, CF_ACC_STATIC, "m",
                  "(Ljava/util/concurrent/ThreadPoolExecutor;Ljava/lang/Runnable;Ljava/util/function/Supplier;)V", &cc);
    }
    d = ca_finish(&a, &len);
    c = d ? cf_parse(d, len, &e) : NULL;
    CHECK(c != NULL);
    if (c != NULL && rw_rewrite(c, &t, 1, &o, &out, &out_len, &e) == 0 && out != NULL)
        oc = cf_parse(out, out_len, &e);
    CHECK(oc != NULL);
    if (oc != NULL) {
        const cf_code *cd = oc->methods[0].code;

        CHECK_INT(cd->code_len, sizeof want);
        for (i = 0; i < sizeof want && i < cd->code_len; i++) {
            if (i >= 3 && (want[i - 2] == BC_INVOKESTATIC || want[i - 1] == BC_INVOKESTATIC ||
                           want[i - 2] == BC_INVOKEVIRTUAL || want[i - 1] == BC_INVOKEVIRTUAL))
                continue;
            if (cd->code[i] != want[i]) {
                fprintf(stderr, "handoff: code[%zu] = 0x%02x, want 0x%02x\n", i, cd->code[i], want[i]);
                check_failures++;
            }
        }
        for (i = 0; i < sizeof refs / sizeof refs[0] && cd->code_len == sizeof want; i++)
            if (cf_member_ref(oc, u2at(cd->code + refs[i].at), &ref) < 0 || strcmp(ref.name, refs[i].name) != 0) {
                fprintf(stderr, "handoff: the invoke at %zu is not %s\n", refs[i].at - 1, refs[i].name);
                check_failures++;
            }
        CHECK_INT(cd->max_stack, 4);        /* the future and the number after supplyAsync */
        /* Without hand-offs followed the sites stay as they are. */
        t.handoff = NULL;
        free(out);
        out = NULL;
        cf_free(oc);
        oc = NULL;
        CHECK_INT(rw_rewrite(c, &t, 1, &o, &out, &out_len, &e), 0);
        if (out != NULL)
            oc = cf_parse(out, out_len, &e);
        /* the code, its entry and exit probes, the handler */
        CHECK(oc != NULL && oc->methods[0].code->code_len == sizeof code + 5 + 5 + 7);
    }
    free(out);
    cf_free(oc);
    cf_free(c);
    free(d);
}

/* rw_probes.arg: after the entry probe, each argument loaded from its
 * slot (two for long and double, from 1 in an instance method) and passed
 * to the probe of its type, before the catch-all's range. */
static void test_args(void)
{
    static const rw_probes arg_probes = {"test/Probe", "enter", "exit", "fail", 0, "arg", 0};
    static const uint8_t ret[] = {BC_RETURN};
    static const uint8_t want[] = {
        0x05, BC_INVOKESTATIC, 0, 0,                 /* 0: iconst_2; enter */
        0x1a, BC_INVOKESTATIC, 0, 0,                 /* 4: iload_0; argI */
        0x1f, BC_INVOKESTATIC, 0, 0,                 /* 8: lload_1; argJ */
        0x2d, BC_INVOKESTATIC, 0, 0,                 /* 12: aload_3; argL */
        0x18, 4, BC_INVOKESTATIC, 0, 0,              /* 16: dload 4; argD */
        0x19, 6, BC_INVOKESTATIC, 0, 0,              /* 21: aload 6; argL */
        0x05, BC_INVOKESTATIC, 0, 0, BC_RETURN,      /* 26: exit; 30: return */
        BC_DUP, 0x05, BC_INVOKESTATIC, 0, 0, BC_ATHROW
    };
    static const struct { uint32_t at; const char *name, *desc; } refs[] = {
        {6, "argI", "(I)V"}, {10, "argJ", "(J)V"}, {14, "argL", "(Ljava/lang/Object;)V"},
        {19, "argD", "(D)V"}, {24, "argL", "(Ljava/lang/Object;)V"},
    };
    struct rw r;
    size_t len, i;
    uint8_t *d;
    cf_ref ref;

    d = one_method(52, CF_ACC_STATIC, "(IJLjava/lang/String;D[I)V", ret, sizeof ret, 0, 7, NULL, 0, NULL, 0, &len,
                   NULL);
    if (rw_run_with(&r, d, len, 0, 2, &arg_probes) == 0) {
        const cf_code *oc = r.oc ? r.oc->methods[0].code : NULL;

        CHECK_INT(r.o.status, RW_REWRITTEN);
        CHECK(oc != NULL && oc->code_len == sizeof want);
        for (i = 0; oc != NULL && i < sizeof want && i < oc->code_len; i++) {
            if (i >= 3 && (want[i - 2] == BC_INVOKESTATIC || want[i - 1] == BC_INVOKESTATIC))
                continue;
            if (oc->code[i] != want[i]) {
                fprintf(stderr, "args: code[%zu] = 0x%02x, want 0x%02x\n", i, oc->code[i], want[i]);
                check_failures++;
            }
        }
        for (i = 0; oc != NULL && oc->code_len == sizeof want && i < sizeof refs / sizeof refs[0]; i++)
            CHECK(cf_member_ref(r.oc, u2at(oc->code + refs[i].at), &ref) == 0 &&
                  strcmp(ref.owner, "test/Probe") == 0 && strcmp(ref.name, refs[i].name) == 0 &&
                  strcmp(ref.desc, refs[i].desc) == 0);
        CHECK(oc != NULL && oc->max_stack >= 2 && oc->handlers[0].start == 26);
    }
    rw_done(&r);

    /* An instance method: `this` is not an argument. */
    d = one_method(52, 0, "(Z)V", ret, sizeof ret, 0, 2, NULL, 0, NULL, 0, &len, NULL);
    if (rw_run_with(&r, d, len, 0, 2, &arg_probes) == 0) {
        const cf_code *oc = r.oc ? r.oc->methods[0].code : NULL;

        CHECK(oc != NULL && oc->code_len > 8 && oc->code[4] == 0x1b &&
              cf_member_ref(r.oc, u2at(oc->code + 6), &ref) == 0 && strcmp(ref.name, "argZ") == 0 &&
              strcmp(ref.desc, "(Z)V") == 0);
    }
    rw_done(&r);
}

static void test_errors(void)
{
    static const uint8_t ret[] = {BC_RETURN};
    size_t len, out_len;
    uint8_t *d = one_method(52, CF_ACC_STATIC, "()V", ret, 1, 0, 0, NULL, 0, NULL, 0, &len, NULL), *out;
    mct_err err;
    cf_class *c = cf_parse(d, len, &err);
    rw_target t[2] = {{.method = 0, .id = 1, .probes = &probes}, {.method = 0, .id = 2, .probes = &probes}};
    rw_outcome o[2];

    CHECK(c != NULL);
    if (c == NULL) {
        free(d);
        return;
    }
    CHECK_INT(rw_rewrite(c, t, 2, o, &out, &out_len, &err), -1);
    CHECK_INT(err.code, MCT_E_ARG);
    CHECK(strstr(err.msg, "listed twice") != NULL);
    CHECK(out == NULL);
    t[1].method = 1;
    CHECK_INT(rw_rewrite(c, t, 2, o, &out, &out_len, &err), -1);
    CHECK(strstr(err.msg, "out of range") != NULL);
    t[0].probes = NULL;
    CHECK_INT(rw_rewrite(c, t, 1, o, &out, &out_len, &err), -1);
    /* nothing to do: no output */
    CHECK_INT(rw_rewrite(c, t, 0, o, &out, &out_len, &err), 0);
    CHECK(out == NULL);
    cf_free(c);
    free(d);
}

/* --- ids ---------------------------------------------------------------------------- */

static void test_ids(void)
{
    static const uint8_t ret[] = {BC_RETURN};
    static const struct {
        int32_t id;
        uint8_t op;
        uint32_t len;
    } cases[] = {{-1, 0x02, 1}, {0, 0x03, 1}, {5, 0x08, 1}, {6, BC_BIPUSH, 2}, {-128, BC_BIPUSH, 2},
                 {128, BC_SIPUSH, 3}, {32767, BC_SIPUSH, 3}, {-32769, BC_LDC, 2}, {40000, BC_LDC, 2},
                 {INT32_MAX, BC_LDC, 2}};
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rw r;
        size_t len;
        uint8_t *d = one_method(52, CF_ACC_STATIC, "()V", ret, 1, 0, 0, NULL, 0, NULL, 0, &len, NULL);
        const cf_code *oc;

        if (rw_run(&r, d, len, 0, cases[i].id) == 0 && r.oc) {
            oc = r.oc->methods[0].code;
            CHECK_INT(oc->code[0], cases[i].op);
            CHECK_INT(oc->code[cases[i].len], BC_INVOKESTATIC);
            if (cases[i].op == BC_LDC) {
                CHECK_INT(r.oc->cp[oc->code[1]].tag, CF_INTEGER);
                CHECK_INT((int32_t)r.oc->cp[oc->code[1]].value, cases[i].id);
            }
        }
        rw_done(&r);
    }
    /* an Integer already in the pool is used, even past index 255 (ldc_w) */
    {
        ca_class a;
        struct rw r;
        size_t len;
        uint8_t *d;
        uint16_t k = 0, j;

        ca_init(&a, "T", "java/lang/Object", 52);
        for (j = 0; j < 300; j++)
            k = ca_integer(&a, 70000 + j);
        d = one_method(52, CF_ACC_STATIC, "()V", ret, 1, 0, 0, NULL, 0, NULL, 0, &len, &a);
        if (rw_run(&r, d, len, 0, 70000 + 299) == 0 && r.oc) {
            const cf_code *oc = r.oc->methods[0].code;

            CHECK_INT(oc->code[0], BC_LDC_W);
            CHECK_INT(u2at(oc->code + 1), k);
        }
        rw_done(&r);
    }
}

/* --- the constant pool and the frame codec ------------------------------------------------- */

static void test_cpool(void)
{
    ca_class a;
    size_t len, n;
    uint8_t *d;
    mct_err err;
    cf_class *c;
    cpool *p;
    uint16_t own_class, own_ref;
    int k1, k2;
    cpool_mark m;

    ca_init(&a, "T", "java/lang/Object", 52);
    own_ref = ca_methodref(&a, "test/Probe", "enter", "(I)V");
    own_class = ca_class_ref(&a, "java/lang/Throwable");
    d = one_method(52, CF_ACC_STATIC, "()V", (const uint8_t[]){BC_RETURN}, 1, 0, 0, NULL, 0, NULL, 0, &len, &a);
    c = cf_parse(d, len, &err);
    CHECK(c != NULL);
    if (c == NULL) {
        free(d);
        return;
    }
    p = cpool_new(c, &err);
    CHECK_INT(cpool_methodref(p, "test/Probe", "enter", "(I)V", &err), own_ref);
    CHECK_INT(cpool_class(p, "java/lang/Throwable", 19, &err), own_class);
    CHECK_INT(cpool_count(p), c->cp_count);
    m = cpool_get_mark(p);
    k1 = cpool_methodref(p, "test/Probe", "exit", "(I)V", &err);
    CHECK_INT(k1, c->cp_count + 2); /* Utf8 exit, NameAndType, Methodref */
    CHECK_INT(cpool_methodref(p, "test/Probe", "exit", "(I)V", &err), k1);
    k2 = cpool_integer(p, 123456, &err);
    CHECK_INT(k2, k1 + 1);
    cpool_added(p, &n);
    CHECK_INT(n, 7 + 5 + 5 + 5); /* Utf8 "exit", NameAndType, Methodref, Integer */
    cpool_rollback(p, m);
    CHECK_INT(cpool_count(p), c->cp_count);
    cpool_added(p, &n);
    CHECK_INT(n, 0);
    CHECK_INT(cpool_integer(p, 123456, &err), c->cp_count);
    cpool_free(p);
    cf_free(c);
    free(d);
}

/* A class with the constants the frame codec test needs, in the same
 * order each time, and one static method (IJ)V of 400 bytes. */
static uint8_t *codec_class(const mct_buf *smt, size_t *len)
{
    static uint8_t code[400];
    ca_class a;
    mct_buf attrs;
    uint8_t *d;

    memset(code, BC_NOP, sizeof code);
    code[sizeof code - 1] = BC_RETURN;
    ca_init(&a, "T", "java/lang/Object", 52);
    ca_class_ref(&a, "java/lang/String");
    buf_init(&attrs);
    if (smt)
        ca_attr(&a, &attrs, "StackMapTable", smt->data, smt->len);
    d = one_method(52, CF_ACC_STATIC, "(IJ)V", code, sizeof code, 4, 6, NULL, 0, &attrs, smt ? 1 : 0, len, &a);
    buf_free(&attrs);
    return d;
}

/* Frames encoded and decoded back: every kind, and deltas past 63. */
static void test_frames_codec(void)
{
    static const uint32_t pcs[] = {3, 100, 101, 200, 300, 301};
    size_t len, len2, i, j, added;
    uint8_t *d = codec_class(NULL, &len), *d2;
    mct_err err;
    cf_class *c = cf_parse(d, len, &err), *c2;
    sm_ctx *x;
    sm_list l, back;
    mct_buf b;
    cpool *cp;
    const sm_frame *order[6];
    uint32_t str;
    sm_frame *f;

    CHECK(c != NULL);
    if (c == NULL) {
        free(d);
        return;
    }
    x = sm_new(c, &err);
    cp = cpool_new(c, &err);
    sm_list_init(&l, 6, 4);
    f = sm_list_add(&l, 0);
    CHECK(sm_initial(x, &c->methods[0], f, &err) == 0);
    CHECK_INT(l.f[0].nlocals, 3);
    CHECK_INT(l.f[0].locals[1].tag, SM_LONG);
    CHECK_INT(l.f[0].locals[2].tag, SM_LONG2);
    CHECK(sm_intern(x, "java/lang/String", 16, &str, &err) == 0);
    for (i = 0; i < 6; i++) {
        f = sm_list_add(&l, pcs[i]);
        sm_copy(f, &l.f[0]);
        f->pc = pcs[i];
    }
    /* 1: same; 2: one stack item, delta past 63; 3: append String, Top;
     * 4: chop 3 (the long counts once); 5: full, a long on the stack;
     * 6: same_locals_1_stack_item */
    l.f[2].nstack = 1;
    l.f[2].stack[0].tag = SM_INTEGER;
    l.f[3].locals[3].tag = SM_OBJECT;
    l.f[3].locals[3].v = str;
    l.f[3].nlocals = 5;
    for (i = 4; i <= 6; i++) {
        l.f[i].nlocals = 1;
        l.f[i].locals[1].tag = SM_TOP;
        l.f[i].locals[2].tag = SM_TOP;
        l.f[i].nstack = 1;
        l.f[i].stack[0].tag = SM_NULL;
    }
    l.f[4].nstack = 0;
    l.f[5].nstack = 3;
    l.f[5].stack[1].tag = SM_LONG;
    l.f[5].stack[2].tag = SM_LONG2;
    for (i = 0; i < 6; i++)
        order[i] = &l.f[i + 1];
    buf_init(&b);
    CHECK(sm_encode(x, &l.f[0], order, 6, cp, NULL, NULL, &b, &err) == 0);
    CHECK_INT(b.data[2], 3);    /* same_frame */
    CHECK_INT(b.data[3], 247);  /* same_locals_1_stack_item_extended */
    CHECK_INT(b.data[7], 253);  /* append 2 */
    CHECK_INT(b.data[14], 248); /* chop 3 */
    CHECK_INT(b.data[17], 255); /* full_frame */
    CHECK_INT(b.data[b.len - 2], 64); /* same_locals_1_stack_item, delta 0 */
    cpool_added(cp, &added);
    CHECK_INT(added, 0); /* String was in the pool */
    d2 = codec_class(&b, &len2);
    c2 = cf_parse(d2, len2, &err);
    CHECK(c2 != NULL);
    if (c2) {
        sm_ctx *x2 = sm_new(c2, &err);

        sm_list_init(&back, 6, 4);
        CHECK(sm_decode(x2, &c2->methods[0], cf_find_attr(c2->methods[0].code->attrs, 1, "StackMapTable"), &back,
                        &err) == 0);
        CHECK_INT(back.n, 7);
        for (i = 1; i < back.n && i < 7; i++) {
            CHECK_INT(back.f[i].pc, pcs[i - 1]);
            CHECK_INT(back.f[i].nlocals, l.f[i].nlocals);
            CHECK_INT(back.f[i].nstack, l.f[i].nstack);
            for (j = 0; j < back.f[i].nlocals; j++)
                CHECK_INT(back.f[i].locals[j].tag, l.f[i].locals[j].tag);
            for (j = 0; j < back.f[i].nstack; j++)
                CHECK_INT(back.f[i].stack[j].tag, l.f[i].stack[j].tag);
        }
        if (back.n == 7)
            CHECK_STR(sm_name(x2, back.f[3].locals[3].v, NULL), "java/lang/String");
        sm_list_free(&back);
        sm_free(x2);
        cf_free(c2);
    }
    free(d2);
    buf_free(&b);
    sm_list_free(&l);
    cpool_free(cp);
    sm_free(x);
    cf_free(c);
    free(d);
}

/* --- the javac-built fixtures ------------------------------------------------------------- */

struct walk_stats {
    int classes, methods, rewritten;
};

/* Skips an element_value or an annotation (after its type) at *pos. */
static int skip_value(const uint8_t *p, uint32_t len, uint32_t *pos, int annotation)
{
    uint16_t n, k;
    uint8_t tag;

    if (annotation) {
        if (len - *pos < 4)
            return -1;
        n = buf_get_u2(p + *pos + 2);
        *pos += 4;
        for (k = 0; k < n; k++) {
            *pos += 2;
            if (*pos > len || skip_value(p, len, pos, 0) < 0)
                return -1;
        }
        return 0;
    }
    if (*pos >= len)
        return -1;
    tag = p[(*pos)++];
    if (tag == '@')
        return skip_value(p, len, pos, 1);
    if (tag == '[') {
        if (len - *pos < 2)
            return -1;
        n = buf_get_u2(p + *pos);
        *pos += 2;
        for (k = 0; k < n; k++)
            if (skip_value(p, len, pos, 0) < 0)
                return -1;
        return 0;
    }
    *pos += tag == 'e' ? 4 : 2;
    return *pos <= len ? 0 : -1;
}

/* Type annotations of code, old (x) and new (y) side by side (same shape):
 * an annotated instruction keeps its opcode, a local's range follows the
 * LocalVariableTable rule. Returns the number checked, -1 on a mismatch. */
static int compare_type_annos(const uint8_t *x, const uint8_t *y, uint32_t len, const cf_code *a,
                              const cf_code *b, const uint32_t *tgt)
{
    uint32_t pos = 2, k;
    uint16_t n = buf_get_u2(x), i, tl;
    int checked = 0;

    for (i = 0; i < n; i++) {
        uint8_t target = x[pos++];

        if (target == 0x40 || target == 0x41) {
            tl = buf_get_u2(x + pos);
            pos += 2;
            for (k = 0; k < tl; k++, pos += 6) {
                uint16_t start = buf_get_u2(x + pos), end = (uint16_t)(start + buf_get_u2(x + pos + 2));

                if (buf_get_u2(y + pos) != (start == 0 ? 0 : tgt[start]) ||
                    buf_get_u2(y + pos) + buf_get_u2(y + pos + 2) != tgt[end])
                    return -1;
                checked++;
            }
        } else if (target == 0x42) {
            pos += 2;
        } else {
            uint16_t off = buf_get_u2(x + pos), noff = buf_get_u2(y + pos);

            if (noff >= b->code_len || b->code[noff] != a->code[off] || noff != tgt[off])
                return -1;
            checked++;
            pos += target >= 0x47 ? 3 : 2;
        }
        pos += 1 + 2u * x[pos];
        if (skip_value(x, len, &pos, 1) < 0)
            return -1;
    }
    return checked;
}

static int type_annos_checked;

/* Steps over a probe (push id; invokestatic) at *pb. */
static int skip_probe(const cf_code *b, uint32_t *pb)
{
    bc_insn in;
    mct_err err;

    if (bc_decode(b->code, b->code_len, *pb, &in, &err) < 0 || in.op == BC_INVOKESTATIC)
        return -1;
    *pb += in.len;
    if (bc_decode(b->code, b->code_len, *pb, &in, &err) < 0 || in.op != BC_INVOKESTATIC)
        return -1;
    *pb += in.len;
    return 0;
}

static void mismatch(const char *path, const cf_member *m, const char *what, uint32_t pc)
{
    fprintf(stderr, "%s %s%s: %s (old pc %u)\n", path, m->name, m->desc, what, pc);
    check_failures++;
}

/* Compares one method before and after: after the entry probe, the old
 * instructions come back in order, a return behind its exit probe, the
 * same bytes unless they branch, a branch widened only as goto_w or as the
 * inverted conditional over a goto_w; the exception table and the line
 * numbers land where branches to their instructions land. */
static void compare_method(const char *path, const cf_class *c, const cf_member *m, const cf_class *oc,
                           const cf_member *om)
{
    const cf_code *a = m->code, *b = om->code;
    uint32_t pa = 0, pb = 0, *tgt = calloc(a->code_len + 1, sizeof *tgt);
    bc_insn ia, ib;
    mct_err err;
    uint16_t i;

    if (tgt == NULL)
        return;
    if (skip_probe(b, &pb) < 0)
        mismatch(path, m, "no entry probe", 0);
    while (pa < a->code_len) {
        if (bc_decode(a->code, a->code_len, pa, &ia, &err) < 0)
            break;
        tgt[pa] = pb;
        if ((ia.flags & BC_F_RETURN) && skip_probe(b, &pb) < 0) {
            mismatch(path, m, "no exit probe", pa);
            break;
        }
        if (bc_decode(b->code, b->code_len, pb, &ib, &err) < 0) {
            mismatch(path, m, "new code ends early", pa);
            break;
        }
        if (ib.op == ia.op) {
            if (!(ia.flags & BC_F_BRANCH) && memcmp(a->code + pa, b->code + pb, ia.len) != 0)
                mismatch(path, m, "instruction changed", pa);
            pb += ib.len;
        } else if (ia.op == BC_GOTO && ib.op == BC_GOTO_W) {
            pb += ib.len;
        } else if ((ia.flags & BC_F_COND) && (ib.flags & BC_F_COND) && ib.target == pb + 8 &&
                   b->code[pb + 3] == BC_GOTO_W) {
            pb += 8;
        } else {
            mismatch(path, m, "instruction replaced", pa);
            break;
        }
        pa += ia.len;
    }
    tgt[a->code_len] = pb;
    if (pa != a->code_len || b->code[pb] != BC_DUP)
        mismatch(path, m, "not the old code and a catch-all", pa);
    if (b->n_handlers != a->n_handlers + 1) {
        mismatch(path, m, "handlers lost", 0);
    } else {
        for (i = 0; i < a->n_handlers; i++)
            if (b->handlers[i].start != tgt[a->handlers[i].start] || b->handlers[i].end != tgt[a->handlers[i].end] ||
                b->handlers[i].handler != tgt[a->handlers[i].handler] ||
                b->handlers[i].catch_type != a->handlers[i].catch_type)
                mismatch(path, m, "handler moved wrongly", a->handlers[i].handler);
        if (b->handlers[i].catch_type != 0 || b->handlers[i].handler != pb || b->handlers[i].end != pb)
            mismatch(path, m, "catch-all not last", 0);
    }
    {
        const cf_attr *la = cf_find_attr(a->attrs, a->n_attrs, "LineNumberTable");
        const cf_attr *lb = cf_find_attr(b->attrs, b->n_attrs, "LineNumberTable");

        if ((la == NULL) != (lb == NULL) || (la && la->len != lb->len)) {
            mismatch(path, m, "LineNumberTable lost", 0);
        } else if (la) {
            const uint8_t *x = cf_attr_info(c, la), *y = cf_attr_info(oc, lb);
            uint16_t n = buf_get_u2(x), k;

            for (k = 0; k < n; k++) {
                uint16_t old = buf_get_u2(x + 2 + 4 * k), nw = buf_get_u2(y + 2 + 4 * k);

                if (buf_get_u2(x + 4 + 4 * k) != buf_get_u2(y + 4 + 4 * k) || nw != (old == 0 ? 0 : tgt[old]))
                    mismatch(path, m, "line entry moved wrongly", old);
            }
        }
    }
    for (i = 0; i < 2; i++) {
        const char *name = i ? "RuntimeInvisibleTypeAnnotations" : "RuntimeVisibleTypeAnnotations";
        const cf_attr *ta = cf_find_attr(a->attrs, a->n_attrs, name);
        const cf_attr *tb = cf_find_attr(b->attrs, b->n_attrs, name);
        int r;

        if (ta == NULL)
            continue;
        if (tb == NULL || tb->len != ta->len ||
            (r = compare_type_annos(cf_attr_info(c, ta), cf_attr_info(oc, tb), ta->len, a, b, tgt)) < 0)
            mismatch(path, m, "type annotation moved wrongly", 0);
        else
            type_annos_checked += r;
    }
    free(tgt);
}

static void fixture_class(const char *path, struct walk_stats *st)
{
    FILE *f = fopen(path, "rb");
    long n;
    uint8_t *d;
    struct rw r;
    rw_target *t;
    rw_outcome *o;
    size_t i;
    mct_err err;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0) {
        if (f)
            fclose(f);
        return;
    }
    d = malloc((size_t)n);
    if (d == NULL || fread(d, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(d);
        return;
    }
    fclose(f);
    memset(&r, 0, sizeof r);
    r.in = d;
    r.c = cf_parse(d, (size_t)n, &err);
    if (r.c == NULL) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        check_failures++;
        free(d);
        return;
    }
    t = calloc(r.c->n_methods + 1u, sizeof *t);
    o = calloc(r.c->n_methods + 1u, sizeof *o);
    for (i = 0; i < r.c->n_methods; i++) {
        t[i].method = (uint16_t)i;
        t[i].id = (int32_t)(i * 7919 % 50000);
        t[i].probes = &probes;
    }
    st->classes++;
    CHECK_INT(rw_rewrite(r.c, t, r.c->n_methods, o, &r.out, &r.out_len, &err), 0);
    if (r.out)
        r.oc = cf_parse(r.out, r.out_len, &err);
    for (i = 0; i < r.c->n_methods; i++) {
        st->methods++;
        if (o[i].status != RW_REWRITTEN) {
            if (r.c->methods[i].code != NULL) {
                fprintf(stderr, "%s %s%s skipped: %s\n", path, r.c->methods[i].name, r.c->methods[i].desc,
                        o[i].reason);
                check_failures++;
            }
            continue;
        }
        st->rewritten++;
        if (r.oc == NULL || bc_scan(r.oc->methods[i].code->code, r.oc->methods[i].code->code_len, NULL, &err) < 0) {
            fprintf(stderr, "%s %s%s: bad output\n", path, r.c->methods[i].name, r.c->methods[i].desc);
            check_failures++;
            continue;
        }
        compare_method(path, r.c, &r.c->methods[i], r.oc, &r.oc->methods[i]);
    }
    free(t);
    free(o);
    rw_done(&r);
}

static void fixture_tree(const char *dir, struct walk_stats *st)
{
    DIR *dp = opendir(dir);
    struct dirent *de;

    if (dp == NULL)
        return;
    while ((de = readdir(dp)) != NULL) {
        char path[4096];
        struct stat sb;
        size_t n = strlen(de->d_name);

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &sb) < 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            fixture_tree(path, st);
        else if (n > 6 && strcmp(de->d_name + n - 6, ".class") == 0)
            fixture_class(path, st);
    }
    closedir(dp);
}

static void test_fixtures(void)
{
    const char *b = getenv("MCT_BUILDDIR");
    char dir[4096];
    struct walk_stats st = {0};

    if (b == NULL)
        return;
    snprintf(dir, sizeof dir, "%s/tests/java/classes/rwfx", b);
    fixture_tree(dir, &st);
    snprintf(dir, sizeof dir, "%s/tests/java/rwbig/classes", b);
    fixture_tree(dir, &st);
    snprintf(dir, sizeof dir, "%s/tests/java/rwold", b);
    fixture_tree(dir, &st);
    CHECK(st.classes > 10);
    CHECK(st.rewritten > 50);
    CHECK(type_annos_checked >= 6); /* Misc.tagged */
}

int main(void)
{
    test_layout();
    test_kept();
    test_targets_and_ctor();
    test_switches();
    test_widening();
    test_skips();
    test_receiver();
    test_args();
    test_errors();
    test_ids();
    test_cpool();
    test_frames_codec();
    test_handoff();
    test_fixtures();
    return check_status();
}
