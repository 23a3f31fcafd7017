/* test_trivial.c — which methods are trivial (trivial.h): accessors and
 * short straight-line leaves are; a method that calls, loops, switches,
 * allocates, locks, throws, has a handler, is synchronized, reaches
 * another class, loads a constant that may run code, or is too long is
 * not. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "classasm.h"
#include "classfile.h"
#include "trivial.h"

#define OWN "t/Own"

/* The indexes a case's code refers to, filled as the class is built. */
struct refs {
    uint16_t own_f, own_s, other_f, call, str, cls;
};

/* Adds method name with code (len bytes), access acc; handler: one
 * catch-all over the code. */
static void method(ca_class *a, uint16_t acc, const char *name, const char *desc, const uint8_t *code,
                   uint32_t len, int handler)
{
    static const cf_handler h = {0, 1, 1, 0};
    ca_code c = {.code = code, .len = len, .max_stack = 4, .max_locals = 4, .handlers = handler ? &h : NULL,
                 .n_handlers = handler ? 1 : 0};

    ca_method(a, acc, name, desc, code != NULL ? &c : NULL);
}

#define HI(x) (uint8_t)((x) >> 8)
#define LO(x) (uint8_t)((x) & 0xff)

/* Builds the class of every case; the methods named "yes*" are trivial,
 * "no*" are not. */
static uint8_t *build(size_t *len)
{
    ca_class a;
    struct refs r;
    uint8_t big[TRIVIAL_CODE_MAX + 2];

    ca_init(&a, OWN, "java/lang/Object", 52);
    r.own_f = ca_fieldref(&a, OWN, "f", "I");
    r.own_s = ca_fieldref(&a, OWN, "s", "I");
    r.other_f = ca_fieldref(&a, "t/Other", "f", "I");
    r.call = ca_methodref(&a, OWN, "get", "()I");
    r.str = ca_string(&a, "text");
    r.cls = ca_class_ref(&a, "t/Other");
    {
        const uint8_t get[] = {0x2a, 0xb4, HI(r.own_f), LO(r.own_f), 0xac};              /* aload_0 getfield ireturn */
        const uint8_t set[] = {0x2a, 0x1b, 0xb5, HI(r.own_f), LO(r.own_f), 0xb1};        /* aload_0 iload_1 putfield */
        const uint8_t stat[] = {0xb2, HI(r.own_s), LO(r.own_s), 0xac};                   /* getstatic own */
        const uint8_t fwd[] = {0x1b, 0x99, 0x00, 0x05, 0x04, 0xac, 0x03, 0xac};          /* if: return 1 or 0 */
        const uint8_t ldcs[] = {0x12, LO(r.str), 0xb0};                                  /* ldc "text" */
        const uint8_t other[] = {0x2b, 0xb4, HI(r.other_f), LO(r.other_f), 0xac};        /* another class's field */
        const uint8_t ostat[] = {0xb2, HI(r.other_f), LO(r.other_f), 0xac};              /* its static */
        const uint8_t call[] = {0x2a, 0xb6, HI(r.call), LO(r.call), 0xac};               /* invokevirtual */
        const uint8_t loop[] = {0x00, 0xa7, 0xff, 0xff};                                 /* nop; goto -1 */
        const uint8_t self[] = {0xa7, 0x00, 0x00};                                       /* goto 0 */
        const uint8_t alloc[] = {0x10, 0x04, 0xbc, 0x0a, 0xb0};                          /* newarray int */
        const uint8_t nw[] = {0xbb, HI(r.cls), LO(r.cls), 0xb0};                         /* new */
        const uint8_t lock[] = {0x2a, 0xc2, 0xb1};                                       /* monitorenter */
        const uint8_t thr[] = {0x2a, 0xbf};                                              /* athrow */
        const uint8_t cast[] = {0x2b, 0xc0, HI(r.cls), LO(r.cls), 0xb0};                 /* checkcast */
        const uint8_t ldcc[] = {0x12, LO(r.cls), 0xb0};                                  /* ldc a class */
        const uint8_t sw[] = {0x1b, 0xab, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0xb1};
        const uint8_t ret[] = {0xb1};

        method(&a, CF_ACC_PUBLIC, "yesGet", "()I", get, sizeof get, 0);
        method(&a, CF_ACC_PUBLIC, "yesSet", "(I)V", set, sizeof set, 0);
        method(&a, CF_ACC_STATIC, "yesStatic", "()I", stat, sizeof stat, 0);
        method(&a, CF_ACC_PUBLIC, "yesForward", "(I)I", fwd, sizeof fwd, 0);
        method(&a, CF_ACC_PUBLIC, "yesString", "()Ljava/lang/Object;", ldcs, sizeof ldcs, 0);
        method(&a, CF_ACC_PUBLIC, "yesEmpty", "()V", ret, sizeof ret, 0);
        memset(big, 0, sizeof big);                     /* nops, then return */
        big[TRIVIAL_CODE_MAX - 1] = 0xb1;
        method(&a, CF_ACC_PUBLIC, "yesLongest", "()V", big, TRIVIAL_CODE_MAX, 0);
        big[TRIVIAL_CODE_MAX - 1] = 0x00;
        big[TRIVIAL_CODE_MAX] = 0xb1;
        method(&a, CF_ACC_PUBLIC, "noLong", "()V", big, TRIVIAL_CODE_MAX + 1, 0);
        method(&a, CF_ACC_PUBLIC, "noOtherField", "(Lt/Other;)I", other, sizeof other, 0);
        method(&a, CF_ACC_STATIC, "noOtherStatic", "()I", ostat, sizeof ostat, 0);
        method(&a, CF_ACC_PUBLIC, "noCall", "()I", call, sizeof call, 0);
        method(&a, CF_ACC_PUBLIC, "noLoop", "()V", loop, sizeof loop, 0);
        method(&a, CF_ACC_PUBLIC, "noSelfLoop", "()V", self, sizeof self, 0);
        method(&a, CF_ACC_PUBLIC, "noArray", "()Ljava/lang/Object;", alloc, sizeof alloc, 0);
        method(&a, CF_ACC_PUBLIC, "noNew", "()Ljava/lang/Object;", nw, sizeof nw, 0);
        method(&a, CF_ACC_PUBLIC, "noLock", "()V", lock, sizeof lock, 0);
        method(&a, CF_ACC_PUBLIC, "noThrow", "()V", thr, sizeof thr, 0);
        method(&a, CF_ACC_PUBLIC, "noCast", "(Ljava/lang/Object;)Ljava/lang/Object;", cast, sizeof cast, 0);
        method(&a, CF_ACC_PUBLIC, "noClassConstant", "()Ljava/lang/Object;", ldcc, sizeof ldcc, 0);
        method(&a, CF_ACC_PUBLIC, "noSwitch", "(I)V", sw, sizeof sw, 0);
        method(&a, CF_ACC_PUBLIC | CF_ACC_SYNCHRONIZED, "noSynchronized", "()I", get, sizeof get, 0);
        method(&a, CF_ACC_PUBLIC, "noHandler", "()I", get, sizeof get, 1);
        method(&a, CF_ACC_PUBLIC | CF_ACC_ABSTRACT, "noAbstract", "()I", NULL, 0, 0);
    }
    return ca_finish(&a, len);
}

int main(void)
{
    size_t len = 0, yes = 0, no = 0;
    uint8_t *data = build(&len);
    mct_err err;
    cf_class *c = data != NULL ? cf_parse(data, len, &err) : NULL;

    CHECK(c != NULL);
    for (uint16_t i = 0; c != NULL && i < c->n_methods; i++) {
        const cf_member *m = &c->methods[i];
        int want = strncmp(m->name, "yes", 3) == 0;

        if (cf_trivial(c, m) != want)
            fprintf(stderr, "%s%s: trivial %d, want %d\n", m->name, m->desc, !want, want);
        CHECK_INT(cf_trivial(c, m), want);
        want ? yes++ : no++;
    }
    CHECK_INT(yes, 7);
    CHECK_INT(no, 16);
    cf_free(c);
    free(data);
    return check_status();
}
