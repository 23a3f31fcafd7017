/* test_classfile.c — the class file parser and the instruction decoder, on
 * class files assembled here (so that each malformation is exact) and on the
 * class files javac built for the tests; and buf_grow, which the agent's
 * arrays grow with. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "bytecode.h"
#include "check.h"
#include "classfile.h"

/* --- a tiny class file assembler ---------------------------------------------- */

struct asm_class {
    mct_buf cp;       /* constant pool entries */
    uint16_t count;   /* next constant pool index */
};

static uint16_t k_utf8(struct asm_class *a, const char *s)
{
    buf_u1(&a->cp, CF_UTF8);
    buf_u2(&a->cp, (uint16_t)strlen(s));
    buf_bytes(&a->cp, s, strlen(s));
    return a->count++;
}

static uint16_t k_pair(struct asm_class *a, uint8_t tag, uint16_t x, uint16_t y)
{
    buf_u1(&a->cp, tag);
    buf_u2(&a->cp, x);
    buf_u2(&a->cp, y);
    return a->count++;
}

static uint16_t k_class(struct asm_class *a, const char *name)
{
    uint16_t n = k_utf8(a, name);

    buf_u1(&a->cp, CF_CLASS);
    buf_u2(&a->cp, n);
    return a->count++;
}

static uint16_t k_methodref(struct asm_class *a, const char *owner, const char *name, const char *desc)
{
    uint16_t c = k_class(a, owner);
    uint16_t nat = k_pair(a, CF_NAME_AND_TYPE, k_utf8(a, name), k_utf8(a, desc));

    return k_pair(a, CF_METHODREF, c, nat);
}

/* Assembles "class T extends java/lang/Object" with one method m()V whose
 * body is code[0..n) (max_stack 4, max_locals 2) and the given exception
 * handlers; extra constants come first so their indexes are known. */
static uint8_t *assemble(const uint8_t *code, uint32_t n, const cf_handler *h, uint16_t nh,
                         uint16_t major, size_t *len)
{
    struct asm_class a = {.count = 1};
    mct_buf out;
    uint16_t this_c, super_c, mname, mdesc, code_name, i;

    buf_init(&a.cp);
    buf_init(&out);
    k_methodref(&a, "T", "m", "()V"); /* #1..#6, a known Methodref at #6 */
    this_c = k_class(&a, "T");
    super_c = k_class(&a, "java/lang/Object");
    mname = k_utf8(&a, "m");
    mdesc = k_utf8(&a, "()V");
    code_name = k_utf8(&a, "Code");
    buf_u4(&out, 0xCAFEBABE);
    buf_u2(&out, 0);
    buf_u2(&out, major);
    buf_u2(&out, a.count);
    buf_bytes(&out, a.cp.data, a.cp.len);
    buf_u2(&out, CF_ACC_PUBLIC | CF_ACC_SUPER);
    buf_u2(&out, this_c);
    buf_u2(&out, super_c);
    buf_u2(&out, 0); /* interfaces */
    buf_u2(&out, 0); /* fields */
    buf_u2(&out, 1); /* methods */
    buf_u2(&out, CF_ACC_PUBLIC | CF_ACC_STATIC);
    buf_u2(&out, mname);
    buf_u2(&out, mdesc);
    buf_u2(&out, 1);
    buf_u2(&out, code_name);
    buf_u4(&out, 12 + n + 8u * nh);
    buf_u2(&out, 4);
    buf_u2(&out, 2);
    buf_u4(&out, n);
    buf_bytes(&out, code, n);
    buf_u2(&out, nh);
    for (i = 0; i < nh; i++) {
        buf_u2(&out, h[i].start);
        buf_u2(&out, h[i].end);
        buf_u2(&out, h[i].handler);
        buf_u2(&out, h[i].catch_type);
    }
    buf_u2(&out, 0); /* code attributes */
    buf_u2(&out, 0); /* class attributes */
    buf_free(&a.cp);
    return buf_steal(&out, len);
}

static const uint8_t simple_code[] = {BC_ICONST_0, BC_IFEQ, 0, 4, BC_NOP, BC_RETURN};

static void test_simple(void)
{
    size_t len;
    uint8_t *d = assemble(simple_code, sizeof simple_code, NULL, 0, 52, &len);
    mct_err err;
    cf_class *c = cf_parse(d, len, &err);
    cf_ref ref;

    CHECK(c != NULL);
    if (c == NULL) {
        fprintf(stderr, "parse: %s\n", err.msg);
        free(d);
        return;
    }
    CHECK_STR(c->name, "T");
    CHECK_STR(c->super_name, "java/lang/Object");
    CHECK_INT(c->major, 52);
    CHECK_INT(c->n_methods, 1);
    CHECK_STR(c->methods[0].name, "m");
    CHECK_STR(c->methods[0].desc, "()V");
    CHECK(c->methods[0].code != NULL);
    CHECK_INT(c->methods[0].code->code_len, sizeof simple_code);
    CHECK_INT(c->methods[0].code->max_stack, 4);
    CHECK(memcmp(c->methods[0].code->code, simple_code, sizeof simple_code) == 0);
    CHECK(cf_member_ref(c, 6, &ref) == 0);
    CHECK_STR(ref.owner, "T");
    CHECK_STR(ref.name, "m");
    CHECK_STR(ref.desc, "()V");
    CHECK(cf_member_ref(c, 1, &ref) == -1);
    CHECK(cf_find_method(c, "m", "()V") == &c->methods[0]);
    CHECK(cf_find_method(c, "m", "(I)V") == NULL);
    cf_free(c);
    free(d);
}

/* Parses d and checks it fails with code and a message containing want. */
static void expect_fail(const uint8_t *d, size_t len, int code, const char *want, int line)
{
    mct_err err;
    cf_class *c = cf_parse(d, len, &err);

    if (c != NULL) {
        fprintf(stderr, "line %d: parse succeeded, want failure \"%s\"\n", line, want);
        check_failures++;
        cf_free(c);
        return;
    }
    if (err.code != code || strstr(err.msg, want) == NULL) {
        fprintf(stderr, "line %d: got %s \"%s\", want %s \"%s\"\n", line, mct_code_name(err.code),
                err.msg, mct_code_name(code), want);
        check_failures++;
    }
}

static void test_malformed(void)
{
    size_t len, i;
    uint8_t *d = assemble(simple_code, sizeof simple_code, NULL, 0, 52, &len);
    uint8_t *copy = malloc(len + 1);
    cf_handler bad_h = {.start = 2, .end = 1, .handler = 0};
    cf_handler past_h = {.start = 0, .end = 7, .handler = 0};
    uint8_t *h;
    size_t hlen;

    /* Every truncation fails cleanly. */
    for (i = 0; i < len; i++) {
        mct_err err;
        cf_class *c;

        memcpy(copy, d, i);
        c = cf_parse(copy, i, &err);
        CHECK(c == NULL);
        cf_free(c);
    }
    memcpy(copy, d, len);
    copy[len] = 0;
    expect_fail(copy, len + 1, MCT_E_CLASSFILE, "trailing", __LINE__);

    memcpy(copy, d, len);
    copy[0] = 0xCB;
    expect_fail(copy, len, MCT_E_CLASSFILE, "bad magic", __LINE__);

    memcpy(copy, d, len);
    copy[7] = CF_MAX_MAJOR + 1;
    expect_fail(copy, len, MCT_E_UNSUPPORTED, "outside the supported", __LINE__);
    copy[7] = CF_MIN_MAJOR - 1;
    expect_fail(copy, len, MCT_E_UNSUPPORTED, "outside the supported", __LINE__);

    /* The Methodref at #7 pointing at a Utf8 instead of a Class. */
    memcpy(copy, d, len);
    for (i = 10; i + 4 < len; i++) {
        if (copy[i] == CF_METHODREF && copy[i + 1] == 0 && copy[i + 2] == 2) {
            copy[i + 2] = 1;
            break;
        }
    }
    expect_fail(copy, len, MCT_E_CLASSFILE, "wrong kind", __LINE__);

    h = assemble(simple_code, sizeof simple_code, &bad_h, 1, 52, &hlen);
    expect_fail(h, hlen, MCT_E_CLASSFILE, "exception table", __LINE__);
    free(h);
    h = assemble(simple_code, sizeof simple_code, &past_h, 1, 52, &hlen);
    expect_fail(h, hlen, MCT_E_CLASSFILE, "exception table", __LINE__);
    free(h);
    h = assemble(simple_code, 0, NULL, 0, 52, &hlen);
    expect_fail(h, hlen, MCT_E_CLASSFILE, "code length", __LINE__);
    free(h);

    /* Any single corrupted byte: an error or a valid view, never a crash
     * (run under the sanitizers). */
    for (i = 0; i < len; i++) {
        unsigned v;

        for (v = 0; v < 256; v += 17) {
            mct_err err;
            cf_class *c;

            memcpy(copy, d, len);
            copy[i] = (uint8_t)v;
            c = cf_parse(copy, len, &err);
            cf_free(c);
        }
    }
    free(copy);
    free(d);
}

static void test_descriptors(void)
{
    CHECK(cf_desc_check("()V") == 0);
    CHECK(cf_desc_check("(IJ[Ljava/lang/String;D)Ljava/lang/Object;") == 0);
    CHECK(cf_desc_check("(I)") == -1);
    CHECK(cf_desc_check("(V)V") == -1);
    CHECK(cf_desc_check("(Ljava/lang/String)V") == -1);
    CHECK(cf_desc_check("(L;)V") == -1);
    CHECK(cf_desc_check("(La//b;)V") == -1);
    CHECK(cf_desc_check("()VV") == -1);
    CHECK(cf_desc_check("()[V") == -1);
    CHECK(cf_desc_check("I") == -1);
    CHECK_INT(cf_desc_arg_slots("(IJ[Ljava/lang/String;D)V"), 6);
    CHECK_INT(cf_desc_arg_slots("()V"), 0);
    CHECK_STR(cf_desc_return("(IJ)[J"), "[J");
}

static void test_decoder(void)
{
    /* tableswitch at pc 1: padding to 4, default +20, 0..1 -> +20, +21 */
    uint8_t ts[32] = {BC_NOP, BC_TABLESWITCH, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 1,
                      0, 0, 0, 20, 0, 0, 0, 21};
    uint8_t wide[] = {BC_WIDE, BC_IINC, 1, 0, 0xff, 0xfe, BC_RETURN};
    uint8_t into[] = {BC_GOTO, 0, 2, BC_RETURN};
    uint8_t badop[] = {0xcb};
    uint8_t shortsw[] = {BC_LOOKUPSWITCH, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 2};
    bc_insn in;
    mct_err err;

    CHECK(bc_decode(ts, sizeof ts, 1, &in, &err) == 0);
    CHECK_INT(in.len, 23);
    CHECK_INT(in.low, 0);
    CHECK_INT(in.high, 1);
    CHECK_INT(in.ntargets, 2);
    CHECK_INT(in.dflt, 21);
    CHECK_INT(bc_switch_target(ts, &in, 1), 22);
    CHECK_INT(bc_switch_key(ts, &in, 1), 1);
    CHECK(bc_flags(in.op) & BC_F_ENDS);

    CHECK(bc_decode(wide, sizeof wide, 0, &in, &err) == 0);
    CHECK_INT(in.op, BC_IINC);
    CHECK_INT(in.wide, 1);
    CHECK_INT(in.len, 6);
    CHECK_INT(in.index, 256);
    CHECK_INT(in.value, -2);
    CHECK(bc_scan(wide, sizeof wide, NULL, &err) == 0);

    CHECK(bc_scan(into, sizeof into, NULL, &err) == -1);
    CHECK(strstr(err.msg, "not an instruction") != NULL);
    CHECK(bc_decode(badop, sizeof badop, 0, &in, &err) == -1);
    CHECK(strstr(err.msg, "invalid opcode") != NULL);
    CHECK(bc_decode(shortsw, sizeof shortsw, 0, &in, &err) == -1);
    CHECK(strstr(err.msg, "past the end") != NULL);
    CHECK_STR(bc_name(BC_INVOKEDYNAMIC), "invokedynamic");
}

/* Every class file javac built for the tests parses, and every method's code
 * decodes with its branch targets on instruction starts. */
static int parse_tree(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *de;
    int n = 0;

    if (dp == NULL)
        return 0;
    while ((de = readdir(dp)) != NULL) {
        char path[4096];
        FILE *f;
        long flen;
        uint8_t *d;
        mct_err err;
        cf_class *c;
        uint16_t i;

        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (de->d_type == DT_DIR) {
            n += parse_tree(path);
            continue;
        }
        if (strlen(de->d_name) < 7 || strcmp(de->d_name + strlen(de->d_name) - 6, ".class") != 0)
            continue;
        f = fopen(path, "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (flen = ftell(f)) <= 0) {
            if (f)
                fclose(f);
            continue;
        }
        rewind(f);
        d = malloc((size_t)flen);
        if (d == NULL || fread(d, 1, (size_t)flen, f) != (size_t)flen) {
            fclose(f);
            free(d);
            continue;
        }
        fclose(f);
        c = cf_parse(d, (size_t)flen, &err);
        if (c == NULL) {
            fprintf(stderr, "%s: %s\n", path, err.msg);
            check_failures++;
        } else {
            for (i = 0; i < c->n_methods; i++) {
                const cf_code *code = c->methods[i].code;

                if (code && bc_scan(code->code, code->code_len, NULL, &err) < 0) {
                    fprintf(stderr, "%s %s%s: %s\n", path, c->methods[i].name, c->methods[i].desc, err.msg);
                    check_failures++;
                }
            }
            n++;
        }
        cf_free(c);
        free(d);
    }
    closedir(dp);
    return n;
}

static void test_javac_classes(void)
{
    const char *b = getenv("MCT_BUILDDIR");
    char dir[4096];

    if (b == NULL)
        return;
    snprintf(dir, sizeof dir, "%s/tests/java/classes", b);
    CHECK(parse_tree(dir) > 0);
}

static void test_grow(void)
{
    int *a = NULL;
    size_t cap = 0, n;

    for (n = 0; n < 100; n++) {
        CHECK_INT(buf_grow(&a, &cap, n, sizeof *a, 4), 0);
        a[n] = (int)n;
    }
    CHECK(cap == 128);
    CHECK_INT(a[99], 99);
    /* No room is made where the byte count would overflow. */
    CHECK_INT(buf_grow(&a, &cap, cap, SIZE_MAX / 64, 4), -1);
    CHECK(cap == 128);
    free(a);
}

int main(void)
{
    test_grow();
    test_simple();
    test_malformed();
    test_descriptors();
    test_decoder();
    test_javac_classes();
    return check_status();
}
