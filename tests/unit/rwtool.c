/* rwtool.c — drives the rewriter over whole directories of class files for
 * the tests:
 *
 *   rwtool check DIR...     rewrites every method of every class file under
 *                           the DIRs; each output must parse, each rewritten
 *                           method must decode with bc_scan and carry its
 *                           catch-all and a StackMapTable that decodes with
 *                           frames on instructions. Prints the counts of
 *                           rewritten and skipped methods (by reason).
 *   rwtool rewrite [-p OWNER] IN OUT
 *                           rewrites every method of every class under IN
 *                           with the probes of rwprobe/Probe (or those of the
 *                           class OWNER; every other method with enterKept
 *                           and exitKept, rw_probes.keep) into the same
 *                           paths under OUT (ids 0, 1, ...; every third
 *                           one above 32767 so that it needs ldc); prints
 *                           "id class method desc" per rewritten method and
 *                           "skip class method desc: reason" per skipped one.
 *   rwtool gen OUT          writes hand-assembled old class files: Old49 and
 *                           Old50 (branches, handlers, a constructor; no
 *                           StackMapTable) and Jsr49 (a jsr/ret subroutine).
 *
 * Exit status 0, or 1 with the failures on stderr. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "buf.h"
#include "bytecode.h"
#include "classasm.h"
#include "classfile.h"
#include "rewrite.h"
#include "stackmap.h"

static rw_probes probes = {"rwprobe/Probe", "enter", "exit", "fail", 0, NULL, 0};
/* every other method keeps its entry probe's answer in a local */
static rw_probes kept_probes = {"rwprobe/Probe", "enterKept", "exitKept", "fail", 0, NULL, 1};

static int failures;

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    long n;
    uint8_t *d;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    d = malloc(n ? (size_t)n : 1);
    if (d == NULL || fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return d;
}

static int write_file(const char *path, const uint8_t *d, size_t len)
{
    char dir[4096];
    char *p;
    FILE *f;

    snprintf(dir, sizeof dir, "%s", path);
    for (p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    if (fwrite(d, 1, len, f) != len) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

typedef void (*visit_fn)(const char *path, const char *rel, void *ctx);

static void walk(const char *dir, const char *rel, visit_fn fn, void *ctx)
{
    DIR *dp = opendir(dir);
    struct dirent *de;

    if (dp == NULL) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        failures++;
        return;
    }
    while ((de = readdir(dp)) != NULL) {
        char path[4096], r[4096];
        struct stat st;
        size_t n = strlen(de->d_name);

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        if (stat(path, &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(path, r, fn, ctx);
        else if (n > 6 && strcmp(de->d_name + n - 6, ".class") == 0)
            fn(path, r, ctx);
    }
    closedir(dp);
}

/* --- check ------------------------------------------------------------------------ */

struct reason {
    char text[160];
    long count;
};

struct stats {
    long classes, unparsed, methods, rewritten, widened, skipped;
    struct reason reasons[64];
    int n_reasons;
    double secs;
};

/* Reasons grouped with their numbers replaced by N. */
static void count_reason(struct stats *s, const char *why)
{
    char t[160];
    size_t i = 0;
    int k;

    for (; *why && i + 1 < sizeof t; why++) {
        if (*why >= '0' && *why <= '9') {
            if (i == 0 || t[i - 1] != 'N')
                t[i++] = 'N';
        } else {
            t[i++] = *why;
        }
    }
    t[i] = '\0';
    for (k = 0; k < s->n_reasons; k++)
        if (strcmp(s->reasons[k].text, t) == 0) {
            s->reasons[k].count++;
            return;
        }
    if (s->n_reasons < 64) {
        snprintf(s->reasons[s->n_reasons].text, sizeof s->reasons[0].text, "%s", t);
        s->reasons[s->n_reasons++].count = 1;
    }
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The checks on one rewritten method of the output class. */
static void check_method(const char *path, const cf_class *out, const cf_member *m, const rw_outcome *oc)
{
    const cf_code *code = m->code;
    const cf_handler *h;
    uint8_t *starts;
    mct_err err;
    sm_ctx *sm;
    sm_list fl;
    size_t i;

    if (code == NULL) {
        fprintf(stderr, "%s %s%s: rewritten method has no code\n", path, m->name, m->desc);
        failures++;
        return;
    }
    starts = malloc(code->code_len);
    if (starts == NULL || bc_scan(code->code, code->code_len, starts, &err) < 0) {
        fprintf(stderr, "%s %s%s: rewritten code does not scan: %s\n", path, m->name, m->desc,
                starts ? err.msg : "out of memory");
        failures++;
        free(starts);
        return;
    }
    if (code->code_len != oc->new_len || code->n_handlers == 0) {
        fprintf(stderr, "%s %s%s: code length %u, want %u; %u handlers\n", path, m->name, m->desc,
                code->code_len, oc->new_len, code->n_handlers);
        failures++;
    } else {
        h = &code->handlers[code->n_handlers - 1];
        if (h->catch_type != 0 || h->end != h->handler || code->code[h->handler] != BC_DUP ||
            code->code[code->code_len - 1] != BC_ATHROW) {
            fprintf(stderr, "%s %s%s: no catch-all handler last\n", path, m->name, m->desc);
            failures++;
        }
    }
    if (out->major >= 50) {
        sm = sm_new(out, &err);
        sm_list_init(&fl, code->max_locals, code->max_stack);
        if (sm == NULL ||
            sm_decode(sm, m, cf_find_attr(code->attrs, code->n_attrs, "StackMapTable"), &fl, &err) < 0) {
            fprintf(stderr, "%s %s%s: new StackMapTable: %s\n", path, m->name, m->desc, err.msg);
            failures++;
        } else {
            for (i = 1; i < fl.n; i++)
                if (!starts[fl.f[i].pc]) {
                    fprintf(stderr, "%s %s%s: frame at %u is not on an instruction\n", path, m->name, m->desc,
                            fl.f[i].pc);
                    failures++;
                }
        }
        sm_list_free(&fl);
        sm_free(sm);
    }
    free(starts);
}

static void check_class(const char *path, const char *rel, void *ctx)
{
    struct stats *s = ctx;
    size_t len, out_len, i;
    uint8_t *d = read_file(path, &len), *out = NULL;
    mct_err err;
    cf_class *c, *oc;
    rw_target *t;
    rw_outcome *o;
    double t0;

    (void)rel;
    if (d == NULL) {
        fprintf(stderr, "%s: cannot read\n", path);
        failures++;
        return;
    }
    c = cf_parse(d, len, &err);
    if (c == NULL) {
        s->unparsed++;
        fprintf(stderr, "%s: does not parse: %s\n", path, err.msg);
        failures++;
        free(d);
        return;
    }
    s->classes++;
    t = calloc(c->n_methods + 1u, sizeof *t);
    o = calloc(c->n_methods + 1u, sizeof *o);
    for (i = 0; i < c->n_methods; i++) {
        t[i].method = (uint16_t)i;
        t[i].id = i % 3 == 2 ? (int32_t)(40000 + i) : (int32_t)i;
        t[i].probes = i % 2 ? &kept_probes : &probes;
    }
    t0 = now();
    if (rw_rewrite(c, t, c->n_methods, o, &out, &out_len, &err) < 0) {
        fprintf(stderr, "%s: rw_rewrite: %s\n", path, err.msg);
        failures++;
        goto done;
    }
    s->secs += now() - t0;
    s->methods += c->n_methods;
    for (i = 0; i < c->n_methods; i++) {
        if (o[i].status == RW_REWRITTEN) {
            s->rewritten++;
            s->widened += o[i].widened;
        } else {
            s->skipped++;
            count_reason(s, o[i].reason);
        }
    }
    if (out == NULL)
        goto done;
    oc = cf_parse(out, out_len, &err);
    if (oc == NULL) {
        fprintf(stderr, "%s: output does not parse: %s\n", path, err.msg);
        failures++;
        goto done;
    }
    if (oc->n_methods != c->n_methods) {
        fprintf(stderr, "%s: output has %u methods, want %u\n", path, oc->n_methods, c->n_methods);
        failures++;
    } else {
        for (i = 0; i < c->n_methods; i++)
            if (o[i].status == RW_REWRITTEN)
                check_method(path, oc, &oc->methods[i], &o[i]);
    }
    cf_free(oc);
done:
    free(out);
    free(t);
    free(o);
    cf_free(c);
    free(d);
}

static int cmp_reason(const void *a, const void *b)
{
    const struct reason *x = a, *y = b;

    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int cmd_check(int argc, char **argv)
{
    struct stats s;
    int i;

    memset(&s, 0, sizeof s);
    for (i = 0; i < argc; i++)
        walk(argv[i], "", check_class, &s);
    printf("classes %ld, methods %ld: rewritten %ld (%ld branches widened), skipped %ld\n", s.classes, s.methods,
           s.rewritten, s.widened, s.skipped);
    qsort(s.reasons, (size_t)s.n_reasons, sizeof s.reasons[0], cmp_reason);
    for (i = 0; i < s.n_reasons; i++)
        printf("  skipped %6ld: %s\n", s.reasons[i].count, s.reasons[i].text);
    if (s.classes)
        printf("rewrite time: %.1f ms in all, %.1f us per class\n", s.secs * 1e3, s.secs * 1e6 / (double)s.classes);
    if (failures)
        printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}

/* --- rewrite ------------------------------------------------------------------------ */

struct rewrite_ctx {
    const char *out;
    int32_t next_id;
};

static void rewrite_class(const char *path, const char *rel, void *ctx)
{
    struct rewrite_ctx *r = ctx;
    size_t len, out_len, i;
    uint8_t *d = read_file(path, &len), *out = NULL;
    char dst[4096];
    mct_err err;
    cf_class *c;
    rw_target *t;
    rw_outcome *o;

    snprintf(dst, sizeof dst, "%s/%s", r->out, rel);
    c = d ? cf_parse(d, len, &err) : NULL;
    if (c == NULL) {
        fprintf(stderr, "%s: %s\n", path, d ? err.msg : "cannot read");
        failures++;
        free(d);
        return;
    }
    t = calloc(c->n_methods + 1u, sizeof *t);
    o = calloc(c->n_methods + 1u, sizeof *o);
    for (i = 0; i < c->n_methods; i++) {
        int32_t id = r->next_id++;

        t[i].method = (uint16_t)i;
        t[i].id = id % 3 == 2 ? 40000 + id : id;
        t[i].probes = id % 2 ? &kept_probes : &probes;
    }
    if (rw_rewrite(c, t, c->n_methods, o, &out, &out_len, &err) < 0) {
        fprintf(stderr, "%s: rw_rewrite: %s\n", path, err.msg);
        failures++;
    } else {
        for (i = 0; i < c->n_methods; i++) {
            if (o[i].status == RW_REWRITTEN)
                printf("%d %s %s %s widened=%u\n", t[i].id, c->name, c->methods[i].name, c->methods[i].desc,
                       o[i].widened);
            else
                printf("skip %s %s %s: %s\n", c->name, c->methods[i].name, c->methods[i].desc, o[i].reason);
        }
        if (write_file(dst, out ? out : d, out ? out_len : len) < 0) {
            fprintf(stderr, "%s: cannot write: %s\n", dst, strerror(errno));
            failures++;
        }
    }
    free(out);
    free(t);
    free(o);
    cf_free(c);
    free(d);
}

static int cmd_rewrite(const char *in, const char *out)
{
    struct rewrite_ctx r = {.out = out};

    walk(in, "", rewrite_class, &r);
    return failures ? 1 : 0;
}

/* --- gen ------------------------------------------------------------------------------ */

static void op(mct_buf *b, uint8_t o) { buf_u1(b, o); }
static void op1(mct_buf *b, uint8_t o, uint8_t v) { buf_u1(b, o); buf_u1(b, v); }
static void op2(mct_buf *b, uint8_t o, uint16_t v) { buf_u1(b, o); buf_u2(b, v); }

/* Prints the int on the stack below getstatic out: "out; <push>; call; println". */
static void print_call(mct_buf *b, uint16_t out, uint16_t println, const uint8_t *push, size_t n, uint16_t fn)
{
    op2(b, BC_GETSTATIC, out);
    buf_bytes(b, push, n);
    op2(b, BC_INVOKESTATIC, fn);
    op2(b, BC_INVOKEVIRTUAL, println);
}

/* Old49/Old50: the same code without StackMapTable in two versions. */
static int gen_old(const char *dir, const char *name, uint16_t major)
{
    ca_class a;
    mct_buf b;
    ca_code code;
    uint16_t obj_init, sum, pick, thrower, catcher, out, println, self_init, cls, arith;
    char path[4096];
    uint8_t *d;
    size_t len;
    int rc;
    static const uint8_t push10[] = {BC_BIPUSH, 10}, push_m5[] = {BC_BIPUSH, (uint8_t)-5},
                         push5[] = {0x08}, push0[] = {BC_ICONST_0}, push2[] = {0x05};
    cf_handler h = {0, 5, 5, 0};

    ca_init(&a, name, "java/lang/Object", major);
    obj_init = ca_methodref(&a, "java/lang/Object", "<init>", "()V");
    sum = ca_methodref(&a, name, "sum", "(I)I");
    pick = ca_methodref(&a, name, "pick", "(I)I");
    thrower = ca_methodref(&a, name, "thrower", "(I)I");
    catcher = ca_methodref(&a, name, "catcher", "(I)I");
    self_init = ca_methodref(&a, name, "<init>", "(I)V");
    cls = ca_class_ref(&a, name);
    arith = ca_class_ref(&a, "java/lang/ArithmeticException");
    out = ca_fieldref(&a, "java/lang/System", "out", "Ljava/io/PrintStream;");
    println = ca_methodref(&a, "java/io/PrintStream", "println", "(I)V");
    h.catch_type = arith;
    buf_init(&b);

    /* <init>(I)V: computations before super() are straight-line */
    op(&b, 0x1b);                  /* iload_1 */
    op(&b, BC_POP);
    op(&b, BC_ALOAD_0);
    op2(&b, BC_INVOKESPECIAL, obj_init);
    op(&b, BC_RETURN);
    code = (ca_code){.code = b.data, .len = (uint32_t)b.len, .max_stack = 1, .max_locals = 2};
    ca_method(&a, CF_ACC_PUBLIC, "<init>", "(I)V", &code);
    b.len = 0;

    /* static int sum(int n): a loop */
    op(&b, BC_ICONST_0); op(&b, 0x3c);          /* 0: iconst_0; istore_1 */
    op(&b, BC_ICONST_0); op(&b, 0x3d);          /* 2: iconst_0; istore_2 */
    op(&b, 0x1c); op(&b, 0x1a);                 /* 4: iload_2; iload_0 */
    op2(&b, BC_IF_ICMPGE, 13);                  /* 6: -> 19 */
    op(&b, 0x1b); op(&b, 0x1c); op(&b, 0x60); op(&b, 0x3c); /* 9: iload_1 iload_2 iadd istore_1 */
    op(&b, BC_IINC); op(&b, 2); op(&b, 1);      /* 13 */
    op2(&b, BC_GOTO, (uint16_t)-12);            /* 16: -> 4 */
    op(&b, 0x1b); op(&b, 0xac);                 /* 19: iload_1; ireturn */
    code = (ca_code){.code = b.data, .len = (uint32_t)b.len, .max_stack = 2, .max_locals = 3};
    ca_method(&a, CF_ACC_STATIC, "sum", "(I)I", &code);
    b.len = 0;

    /* static int pick(int x): x < 0 ? -1 : x */
    op(&b, 0x1a); op2(&b, BC_IFGE, 5);          /* 0: iload_0; ifge -> 6 */
    op(&b, 0x02); op(&b, 0xac);                 /* 4: iconst_m1; ireturn */
    op(&b, 0x1a); op(&b, 0xac);                 /* 6: iload_0; ireturn */
    code = (ca_code){.code = b.data, .len = (uint32_t)b.len, .max_stack = 1, .max_locals = 1};
    ca_method(&a, CF_ACC_STATIC, "pick", "(I)I", &code);
    b.len = 0;

    /* static int thrower(int x): 10 / x */
    op1(&b, BC_BIPUSH, 10); op(&b, 0x1a); op(&b, 0x6c); op(&b, 0xac);
    code = (ca_code){.code = b.data, .len = (uint32_t)b.len, .max_stack = 2, .max_locals = 1};
    ca_method(&a, CF_ACC_STATIC, "thrower", "(I)I", &code);
    b.len = 0;

    /* static int catcher(int x): try { return thrower(x); } catch (ArithmeticException e) { return -7; } */
    op(&b, 0x1a); op2(&b, BC_INVOKESTATIC, thrower); op(&b, 0xac); /* 0..4 */
    op(&b, 0x4c); op1(&b, BC_BIPUSH, (uint8_t)-7); op(&b, 0xac);   /* 5: astore_1 ... */
    code = (ca_code){.code = b.data, .len = (uint32_t)b.len, .max_stack = 1, .max_locals = 2,
                     .handlers = &h, .n_handlers = 1};
    ca_method(&a, CF_ACC_STATIC, "catcher", "(I)I", &code);
    b.len = 0;

    /* main */
    print_call(&b, out, println, push10, sizeof push10, sum);
    print_call(&b, out, println, push_m5, sizeof push_m5, pick);
    print_call(&b, out, println, push5, sizeof push5, pick);
    print_call(&b, out, println, push0, sizeof push0, catcher);
    print_call(&b, out, println, push2, sizeof push2, catcher);
    op2(&b, BC_NEW, cls); op(&b, BC_DUP); op(&b, 0x06); op2(&b, BC_INVOKESPECIAL, self_init); op(&b, BC_POP);
    op(&b, BC_RETURN);
    code = (ca_code){.code = b.data, .len = (uint32_t)b.len, .max_stack = 3, .max_locals = 1};
    ca_method(&a, CF_ACC_PUBLIC | CF_ACC_STATIC, "main", "([Ljava/lang/String;)V", &code);
    buf_free(&b);

    d = ca_finish(&a, &len);
    snprintf(path, sizeof path, "%s/%s.class", dir, name);
    rc = d ? write_file(path, d, len) : -1;
    free(d);
    return rc;
}

/* Jsr49: a finally-like subroutine with jsr/ret, which the rewriter skips. */
static int gen_jsr(const char *dir)
{
    static const uint8_t fin[] = {0x1a, 0x3c, BC_JSR, 0, 5, 0x1b, 0xac, /* 7: */ 0x4d, BC_IINC, 1, 1,
                                  BC_RET, 2};
    ca_class a;
    mct_buf b;
    ca_code code;
    uint16_t out, println, fn;
    char path[4096];
    uint8_t *d;
    size_t len;
    int rc;
    static const uint8_t push41[] = {BC_BIPUSH, 41};

    ca_init(&a, "Jsr49", "java/lang/Object", 49);
    fn = ca_methodref(&a, "Jsr49", "fin", "(I)I");
    out = ca_fieldref(&a, "java/lang/System", "out", "Ljava/io/PrintStream;");
    println = ca_methodref(&a, "java/io/PrintStream", "println", "(I)V");
    code = (ca_code){.code = fin, .len = sizeof fin, .max_stack = 1, .max_locals = 3};
    ca_method(&a, CF_ACC_STATIC, "fin", "(I)I", &code);
    buf_init(&b);
    print_call(&b, out, println, push41, sizeof push41, fn);
    op(&b, BC_RETURN);
    code = (ca_code){.code = b.data, .len = (uint32_t)b.len, .max_stack = 2, .max_locals = 1};
    ca_method(&a, CF_ACC_PUBLIC | CF_ACC_STATIC, "main", "([Ljava/lang/String;)V", &code);
    buf_free(&b);
    d = ca_finish(&a, &len);
    snprintf(path, sizeof path, "%s/Jsr49.class", dir);
    rc = d ? write_file(path, d, len) : -1;
    free(d);
    return rc;
}

static int cmd_gen(const char *dir)
{
    if (gen_old(dir, "Old49", 49) < 0 || gen_old(dir, "Old50", 50) < 0 || gen_jsr(dir) < 0) {
        fprintf(stderr, "cannot write the classes into %s: %s\n", dir, strerror(errno));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "check") == 0)
        return cmd_check(argc - 2, argv + 2);
    if (argc == 6 && strcmp(argv[1], "rewrite") == 0 && strcmp(argv[2], "-p") == 0) {
        probes.owner = kept_probes.owner = argv[3];
        return cmd_rewrite(argv[4], argv[5]);
    }
    if (argc == 4 && strcmp(argv[1], "rewrite") == 0)
        return cmd_rewrite(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "gen") == 0)
        return cmd_gen(argv[2]);
    fprintf(stderr, "usage: rwtool check DIR... | rewrite [-p OWNER] IN OUT | gen OUT\n");
    return 2;
}
