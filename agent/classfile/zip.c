/* zip.c — see zip.h. The layout is PKWARE's APPNOTE.TXT (section 4.3). */
#include "zip.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define EOCD_SIG 0x06054b50u
#define CEN_SIG 0x02014b50u
#define LOC_SIG 0x04034b50u
#define EOCD_LEN 22u
#define CEN_LEN 46u
#define LOC_LEN 30u
#define MAX_COMMENT 0xffffu

#define METHOD_STORED 0
#define METHOD_DEFLATED 8
#define FLAG_ENCRYPTED 0x0001u

static uint16_t le2(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le4(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* zlib's inflater, opened when first needed: linked in, zlib would be one
 * more library without which the agent does not load at all in a JVM's
 * container that lacks it (linking it in statically needs a
 * position-independent archive, which Debian's is not). */
static struct {
    int (*init)(z_streamp strm, int bits, const char *version, int size);
    int (*inflate)(z_streamp strm, int flush);
    int (*end)(z_streamp strm);
    char why[256];
} zl;

static void open_zlib(void)
{
    void *h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);

    if (h != NULL) {
        *(void **)&zl.init = dlsym(h, "inflateInit2_");
        *(void **)&zl.inflate = dlsym(h, "inflate");
        *(void **)&zl.end = dlsym(h, "inflateEnd");
    }
    if (zl.init == NULL || zl.inflate == NULL || zl.end == NULL) {
        const char *why = dlerror();

        snprintf(zl.why, sizeof zl.why, "%s", why != NULL ? why : "a symbol is missing");
        zl.inflate = NULL;
    }
}

/* The CRC-32 of n bytes (ISO 3309, as zip writes it), bit by bit: class
 * files are small, and stored entries need no zlib. */
static uint32_t crc32_of(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    int k;

    while (n-- > 0) {
        c ^= *p++;
        for (k = 0; k < 8; k++)
            c = c & 1 ? c >> 1 ^ 0xedb88320u : c >> 1;
    }
    return ~c;
}

/* Where the central directory is, and where the archive starts in the
 * file (past any prepended bytes). */
struct dir {
    uint64_t base;
    uint64_t off;
    uint32_t size;
    uint16_t count;
};

static int bad(mct_err *e, const char *what, const char *why)
{
    return mct_err_set(e, MCT_E_CLASSFILE, "%s is not a valid zip archive: %s", what, why);
}

/* The end of central directory record: the last signature whose comment
 * ends the file, as the JDK's ZipFile looks for it. */
static int find_dir(zip_read_fn rd, void *arg, uint64_t size, const char *what, struct dir *d, mct_err *e)
{
    size_t n = size < EOCD_LEN + MAX_COMMENT ? (size_t)size : EOCD_LEN + MAX_COMMENT, i;
    uint8_t *tail, *r = NULL;
    uint64_t at = 0;
    int rc = -1;

    if (size < EOCD_LEN)
        return bad(e, what, "too short");
    if ((tail = malloc(n)) == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading %s", what);
    if (rd(arg, size - n, tail, n) < 0) {
        free(tail);
        return mct_err_set(e, MCT_E_IO, "reading the end of %s failed", what);
    }
    for (i = n - EOCD_LEN + 1; i-- > 0 && r == NULL;)
        if (le4(tail + i) == EOCD_SIG && i + EOCD_LEN + le2(tail + i + 20) == n) {
            r = tail + i;
            at = size - n + i;
        }
    if (r == NULL) {
        bad(e, what, "no end of central directory record");
    } else if (le2(r + 10) == 0xffffu || le4(r + 12) == 0xffffffffu || le4(r + 16) == 0xffffffffu) {
        mct_err_set(e, MCT_E_UNSUPPORTED, "%s is a ZIP64 archive, which mcalltree does not read", what);
    } else if (le2(r + 4) != 0 || le2(r + 6) != 0 || le2(r + 8) != le2(r + 10)) {
        mct_err_set(e, MCT_E_UNSUPPORTED, "%s is split over several disks, which mcalltree does not read", what);
    } else if ((uint64_t)le4(r + 12) + le4(r + 16) > at) {
        bad(e, what, "its central directory runs past its end record");
    } else {
        d->size = le4(r + 12);
        d->off = at - d->size;
        d->base = d->off - le4(r + 16);
        d->count = le2(r + 10);
        rc = 0;
    }
    free(tail);
    return rc;
}

/* The entry's data, inflated when deflated; checked against its sizes and
 * CRC-32. */
static uint8_t *unpack(const uint8_t *in, uint32_t csize, int method, uint32_t usize, uint32_t crc,
                       const char *what, const char *name, mct_err *e)
{
    uint8_t *out = malloc((size_t)usize + 1);
    z_stream z;
    int zr;

    if (out == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading %s in %s", name, what);
        return NULL;
    }
    if (method == METHOD_STORED) {
        memcpy(out, in, usize);
    } else {
        static pthread_once_t once = PTHREAD_ONCE_INIT;

        pthread_once(&once, open_zlib);
        if (zl.inflate == NULL) {
            free(out);
            mct_err_set(e, MCT_E_UNSUPPORTED, "%s in %s is deflated, and zlib (libz.so.1) could not be "
                        "loaded to inflate it: %s", name, what, zl.why);
            return NULL;
        }
        memset(&z, 0, sizeof z);
        if (zl.init(&z, -MAX_WBITS, ZLIB_VERSION, (int)sizeof z) != Z_OK) {
            free(out);
            mct_err_set(e, MCT_E_NOMEM, "zlib could not start inflating %s in %s", name, what);
            return NULL;
        }
        z.next_in = (Bytef *)(uintptr_t)in;
        z.avail_in = csize;
        z.next_out = out;
        z.avail_out = usize;
        zr = zl.inflate(&z, Z_FINISH);
        zl.end(&z);
        if (zr != Z_STREAM_END || z.total_out != usize) {
            free(out);
            mct_err_set(e, MCT_E_CLASSFILE, "%s in %s does not inflate to its %lu bytes (%s)", name, what,
                        (unsigned long)usize, zr == Z_STREAM_END ? "a size differs" : "damaged data");
            return NULL;
        }
    }
    if (crc32_of(out, usize) != crc) {
        free(out);
        mct_err_set(e, MCT_E_CLASSFILE, "%s in %s does not match its CRC-32", name, what);
        return NULL;
    }
    return out;
}

/* Reads the entry whose central record is c (its fields checked to lie in
 * the directory). */
static uint8_t *read_entry(zip_read_fn rd, void *arg, const struct dir *d, const uint8_t *c,
                           const char *what, const char *name, size_t max, size_t *len, mct_err *e)
{
    uint16_t flags = le2(c + 8), method = le2(c + 10);
    uint32_t crc = le4(c + 16), csize = le4(c + 20), usize = le4(c + 24), loff = le4(c + 42);
    uint8_t loc[LOC_LEN], *in, *out;
    uint64_t at;

    if (csize == 0xffffffffu || usize == 0xffffffffu || loff == 0xffffffffu) {
        mct_err_set(e, MCT_E_UNSUPPORTED, "%s in %s is a ZIP64 entry, which mcalltree does not read", name, what);
        return NULL;
    }
    if (flags & FLAG_ENCRYPTED) {
        mct_err_set(e, MCT_E_UNSUPPORTED, "%s in %s is encrypted", name, what);
        return NULL;
    }
    if (method != METHOD_STORED && method != METHOD_DEFLATED) {
        mct_err_set(e, MCT_E_UNSUPPORTED, "%s in %s is compressed with method %u (mcalltree reads stored and "
                    "deflated entries)", name, what, (unsigned)method);
        return NULL;
    }
    if (usize > max) {
        mct_err_set(e, MCT_E_TOOBIG, "%s in %s is %lu bytes, over %zu", name, what, (unsigned long)usize, max);
        return NULL;
    }
    if (method == METHOD_STORED && csize != usize) {
        bad(e, what, "a stored entry's two sizes differ");
        return NULL;
    }
    at = d->base + loff;
    if (at + LOC_LEN > d->off || rd(arg, at, loc, LOC_LEN) < 0 || le4(loc) != LOC_SIG) {
        bad(e, what, "an entry's local header is missing");
        return NULL;
    }
    at += LOC_LEN + (uint64_t)le2(loc + 26) + le2(loc + 28);
    if (at + csize > d->off) {
        bad(e, what, "an entry's data runs past the central directory");
        return NULL;
    }
    if ((in = malloc((size_t)csize + 1)) == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading %s in %s", name, what);
        return NULL;
    }
    if (rd(arg, at, in, csize) < 0) {
        free(in);
        mct_err_set(e, MCT_E_IO, "reading %s in %s failed", name, what);
        return NULL;
    }
    out = unpack(in, csize, method, usize, crc, what, name, e);
    free(in);
    if (out != NULL)
        *len = usize;
    return out;
}

uint8_t *zip_entry(zip_read_fn rd, void *arg, uint64_t size, const char *what, const char *name, size_t max,
                   size_t *len, mct_err *e)
{
    size_t n = strlen(name), pos = 0, k;
    struct dir d = {0};
    uint8_t *cd, *out = NULL;
    int found = 0;

    *len = 0;
    if (find_dir(rd, arg, size, what, &d, e) < 0)
        return NULL;
    if ((cd = malloc((size_t)d.size + 1)) == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading the central directory of %s", what);
        return NULL;
    }
    if (rd(arg, d.off, cd, d.size) < 0) {
        free(cd);
        mct_err_set(e, MCT_E_IO, "reading the central directory of %s failed", what);
        return NULL;
    }
    for (k = 0; k < d.count && !found; k++) {
        const uint8_t *c = cd + pos;
        size_t rec;

        if (d.size - pos < CEN_LEN || le4(c) != CEN_SIG) {
            bad(e, what, "its central directory is cut or damaged");
            free(cd);
            return NULL;
        }
        rec = CEN_LEN + (size_t)le2(c + 28) + le2(c + 30) + le2(c + 32);
        if (d.size - pos < rec) {
            bad(e, what, "a name in its central directory runs past its end");
            free(cd);
            return NULL;
        }
        if (le2(c + 28) == n && memcmp(c + CEN_LEN, name, n) == 0) {
            found = 1;
            out = read_entry(rd, arg, &d, c, what, name, max, len, e);
        }
        pos += rec;
    }
    if (!found)
        mct_err_set(e, MCT_E_NOTFOUND, "%s has no entry %s", what, name);
    free(cd);
    return out;
}
