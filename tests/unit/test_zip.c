/* test_zip.c — the zip reader on the jars of its fuzz corpus (made by the
 * JDK's jar tool: deflated, stored, with a launch script before the
 * archive, cut short) and on damaged copies: the entry's bytes when it is
 * there, MCT_E_NOTFOUND when it is not, an error with a message otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "zip.h"
#include "zipmem.h"

/* What the jars of the corpus hold. */
static const char A_CLASS[] = "\xca\xfe\xba\xbe hello class A hello class A hello";
static const char B_CLASS[] = "class B bytes";

/* A corpus jar, owned, that a case may damage. */
struct mem {
    uint8_t *data;
    size_t size;
};

/* The corpus file name, whole; exits when it cannot be read. */
static struct mem load(const char *name)
{
    const char *dir = getenv("MCT_SRCDIR");
    char path[4096];
    struct mem m = {NULL, 0};
    FILE *f;
    long n;

    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/zip/%s", dir != NULL ? dir : "..", name);
    if ((f = fopen(path, "rb")) == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (m.data = malloc((size_t)n)) == NULL ||
        fread(m.data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    m.size = (size_t)n;
    return m;
}

/* Reads name from m (at most max bytes): want's bytes, or (want NULL) a
 * failure with code and a message. */
static void entry(struct mem *m, const char *name, size_t max, const char *want, int code)
{
    mct_err e;
    size_t len = 7;
    struct zip_mem view = {m->data, m->size};
    uint8_t *b;

    mct_err_clear(&e);
    b = zip_entry(zip_mem_read, &view, m->size, "t.jar", name, max, &len, &e);
    if (want != NULL) {
        CHECK(b != NULL);
        CHECK_INT(len, strlen(want));
        CHECK(b != NULL && len == strlen(want) && memcmp(b, want, len) == 0);
    } else {
        CHECK(b == NULL);
        CHECK_INT(len, 0);
        CHECK_INT(e.code, code);
        CHECK(e.msg[0] != '\0');
    }
    free(b);
}

/* The offset of the first occurrence of s in m (which must hold it). */
static size_t find(const struct mem *m, const char *s)
{
    size_t n = strlen(s), i;

    for (i = 0; i + n <= m->size; i++)
        if (memcmp(m->data + i, s, n) == 0)
            return i;
    fprintf(stderr, "%s is not in the jar\n", s);
    exit(1);
}

int main(void)
{
    static const char *const good[] = {"deflated.jar", "stored.jar", "prefixed.jar"};
    struct mem m;
    size_t i, at;

    for (i = 0; i < sizeof good / sizeof *good; i++) {
        m = load(good[i]);
        entry(&m, "A.class", 1 << 20, A_CLASS, 0);
        entry(&m, "p/B.class", 1 << 20, B_CLASS, 0);
        entry(&m, "p/C.class", 1 << 20, NULL, MCT_E_NOTFOUND);
        entry(&m, "A.clas", 1 << 20, NULL, MCT_E_NOTFOUND);
        entry(&m, "A.class", 10, NULL, MCT_E_TOOBIG);
        free(m.data);
    }
    /* Cut before its central directory. */
    m = load("cut.jar");
    entry(&m, "A.class", 1 << 20, NULL, MCT_E_CLASSFILE);
    free(m.data);
    /* A stored entry's byte changed: its CRC-32 no longer holds. */
    m = load("stored.jar");
    m.data[find(&m, "class B bytes")] ^= 1;
    entry(&m, "p/B.class", 1 << 20, NULL, MCT_E_CLASSFILE);
    entry(&m, "A.class", 1 << 20, A_CLASS, 0);
    /* Its central directory's count says one more entry than it holds. */
    at = m.size - 22;
    CHECK(m.data[at] == 0x50 && m.data[at + 1] == 0x4b);
    m.data[at + 8]++;
    m.data[at + 10]++;
    entry(&m, "Z.class", 1 << 20, NULL, MCT_E_CLASSFILE);
    free(m.data);
    return check_status();
}
