/* codesource.c — see codesource.h. */
#include "codesource.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mutf8.h"
#include "zip.h"

/* The largest class file read: far above what javac writes, low enough
 * that a wrong file is not slurped whole. */
#define CS_MAX_CLASS (64u << 20)

/* Where a class file is looked for. */
struct where {
    char *url;                 /* the location as written in messages */
    char *path;                /* the file or directory (decoded) */
    char *prefix;              /* in a jar: the directory of the classes ("" for its root) */
    int jar;                   /* path is an archive (a jar: URL) */
};

static void where_free(struct where *w)
{
    free(w->url);
    free(w->path);
    free(w->prefix);
}

static void drop(JNIEnv *jni, jobject ref)
{
    if (ref != NULL)
        (*jni)->DeleteLocalRef(jni, ref);
}

/* What obj's method name (no arguments, returning an object of signature
 * sig) returns, or NULL; an exception is cleared. Only for final methods of
 * the JDK, so that no overriding code runs. */
static jobject get(JNIEnv *jni, jobject obj, const char *name, const char *sig)
{
    jclass k = (*jni)->GetObjectClass(jni, obj);
    jmethodID m = k != NULL ? (*jni)->GetMethodID(jni, k, name, sig) : NULL;
    jobject r = m != NULL ? (*jni)->CallObjectMethod(jni, obj, m) : NULL;

    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        drop(jni, r);
        r = NULL;
    }
    drop(jni, k);
    return r;
}

/* The protection domain the class was defined with, or NULL: the field of
 * java.lang.Class (JDK 25) or its native getter (before), so that no Java
 * code runs (Class.getProtectionDomain asks a security manager, which may
 * be anyone's code, on JDKs that have one). */
static jobject protection_domain(JNIEnv *jni, jclass cls)
{
    jclass kc = (*jni)->GetObjectClass(jni, cls);
    jfieldID f = kc != NULL ? (*jni)->GetFieldID(jni, kc, "protectionDomain", "Ljava/security/ProtectionDomain;")
                            : NULL;
    jobject pd = NULL;

    if (f != NULL) {
        pd = (*jni)->GetObjectField(jni, cls, f);
    } else if (kc != NULL) {
        (*jni)->ExceptionClear(jni);
        pd = get(jni, cls, "getProtectionDomain0", "()Ljava/security/ProtectionDomain;");
    }
    (*jni)->ExceptionClear(jni);
    drop(jni, kc);
    return pd;
}

/* A malloc'd UTF-8 copy of what URL url's getter name returns ("" for
 * null), or NULL when out of memory or JNI failed. */
static char *url_part(JNIEnv *jni, jobject url, const char *name)
{
    jstring s = get(jni, url, name, "()Ljava/lang/String;");
    const char *m = s != NULL ? (*jni)->GetStringUTFChars(jni, s, NULL) : "";
    char *r = m != NULL ? mutf8_dup(m) : NULL;

    if (s != NULL && m != NULL)
        (*jni)->ReleaseStringUTFChars(jni, s, m);
    drop(jni, s);
    return r;
}

/* The value of the hexadecimal digit c, or -1. */
static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A malloc'd copy of the n bytes of s with %XX decoded (as the JDK decodes
 * a file: URL's path), or NULL. */
static char *decode(const char *s, size_t n)
{
    char *out = malloc(n + 1), *o = out;
    size_t i;

    if (out == NULL)
        return NULL;
    for (i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            *o++ = (char)(hex(s[i + 1]) << 4 | hex(s[i + 2]));
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    return out;
}

static int nested_jar(const struct where *w, mct_err *e)
{
    return mct_err_set(e, MCT_E_UNSUPPORTED, "its code source %s is a jar inside a jar (as Spring Boot nests "
                       "them), which mcalltree does not read", w->url);
}

/* Spring Boot's location (3.2 on) of a directory in a jar,
 * "nested:JAR/!DIR/!/", into *w; a jar in the jar ("nested:JAR/!LIB.jar!/")
 * is refused. 0, or -1 with e set. */
static int nested(const char *loc, struct where *w, mct_err *e)
{
    const char *sep = strstr(loc, "/!"), *end = sep != NULL ? strstr(sep + 2, "!/") : NULL;

    if (end == NULL || end[2] != '\0' || end == sep + 2 || end[-1] != '/')
        return nested_jar(w, e);
    w->jar = 1;
    if ((w->path = decode(loc, (size_t)(sep - loc))) == NULL ||
        (w->prefix = decode(sep + 2, (size_t)(end - sep - 2))) == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading its code source %s", w->url);
    return 0;
}

/* Reads the URL's protocol and path into *w; 0, or -1 with e set. */
static int locate(const char *protocol, const char *host, const char *path, struct where *w, mct_err *e)
{
    const char *rest, *bang = strstr(path, "!/");

    if (strcmp(protocol, "file") == 0) {
        if (host[0] != '\0' && strcmp(host, "localhost") != 0)
            return mct_err_set(e, MCT_E_UNSUPPORTED, "its code source %s is on another host", w->url);
        if ((w->path = decode(path, strlen(path))) == NULL || (w->prefix = strdup("")) == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading its code source %s", w->url);
        return 0;
    }
    if (strcmp(protocol, "jar") != 0)
        return mct_err_set(e, MCT_E_UNSUPPORTED, "its code source %s is a %s: URL, which mcalltree does not read "
                           "(it reads file: and jar:file: ones)", w->url, protocol);
    if (strncmp(path, "nested:", 7) == 0)
        return nested(path + 7, w, e);
    if (bang != NULL && strstr(bang + 2, "!/") != NULL)
        return nested_jar(w, e);
    if (strncmp(path, "file:", 5) != 0 || bang == NULL)
        return mct_err_set(e, MCT_E_UNSUPPORTED, "its code source %s is not a jar:file: URL of a local jar, "
                           "which mcalltree does not read", w->url);
    rest = path + 5;
    /* file://HOST/path or file:///path */
    if (strncmp(rest, "//", 2) == 0) {
        const char *slash = strchr(rest + 2, '/');

        if (slash == NULL || slash > bang ||
            !(slash == rest + 2 || ((size_t)(slash - rest - 2) == 9 && strncmp(rest + 2, "localhost", 9) == 0)))
            return mct_err_set(e, MCT_E_UNSUPPORTED, "its code source %s is on another host", w->url);
        rest = slash;
    }
    w->jar = 1;
    if ((w->path = decode(rest, (size_t)(bang - rest))) == NULL ||
        (w->prefix = decode(bang + 2, strlen(bang + 2))) == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory reading its code source %s", w->url);
    return 0;
}

/* Where the class's code source is; 0, or -1 with e set. */
static int code_source(JNIEnv *jni, jclass cls, struct where *w, mct_err *e)
{
    jobject pd = protection_domain(jni, cls), cs = NULL, url = NULL;
    char *protocol = NULL, *host = NULL, *path = NULL;
    int rc = -1;

    if (pd == NULL)
        mct_err_set(e, MCT_E_UNSUPPORTED, "it has no protection domain (a class defined from bytes made in "
                    "memory has none)");
    else if ((cs = get(jni, pd, "getCodeSource", "()Ljava/security/CodeSource;")) == NULL)
        mct_err_set(e, MCT_E_UNSUPPORTED, "its protection domain has no code source (a class defined from "
                    "bytes made in memory has none)");
    else if ((url = get(jni, cs, "getLocation", "()Ljava/net/URL;")) == NULL)
        mct_err_set(e, MCT_E_UNSUPPORTED, "its code source has no location (a class defined from bytes made "
                    "in memory has none)");
    else if ((protocol = url_part(jni, url, "getProtocol")) == NULL ||
             (host = url_part(jni, url, "getHost")) == NULL || (path = url_part(jni, url, "getPath")) == NULL)
        mct_err_set(e, MCT_E_JVMTI, "the location of its code source could not be read");
    else if (asprintf(&w->url, "%s:%s%s%s", protocol, host[0] != '\0' ? "//" : "", host, path) < 0) {
        w->url = NULL;
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading its code source");
    } else {
        rc = locate(protocol, host, path, w, e);
    }
    free(protocol);
    free(host);
    free(path);
    drop(jni, url);
    drop(jni, cs);
    drop(jni, pd);
    return rc;
}

/* Reads n bytes at off of the file whose descriptor arg points to. */
static int read_at(void *arg, uint64_t off, void *buf, size_t n)
{
    int fd = *(const int *)arg;
    uint8_t *p = buf;

    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        off += (uint64_t)r;
        n -= (size_t)r;
    }
    return 0;
}

/* Opens path, a regular file or a directory (never blocking on a FIFO);
 * the descriptor, or -1 with e set (what names it). */
static int open_file(const char *path, const char *what, struct stat *st, mct_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0)
        return mct_err_set(e, errno == ENOENT || errno == ENOTDIR ? MCT_E_NOTFOUND : MCT_E_IO,
                           "%s cannot be opened (%s)", what, strerror(errno));
    if (fstat(fd, st) < 0 || !(S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))) {
        close(fd);
        return mct_err_set(e, MCT_E_IO, "%s is not a file or a directory", what);
    }
    return fd;
}

/* The class file at dir/file (file a relative name). */
static uint8_t *read_plain(const char *dir, const char *file, const char *url, size_t *len, mct_err *e)
{
    size_t n = strlen(dir);
    char *path;
    uint8_t *bytes = NULL;
    struct stat st;
    int fd;

    if (asprintf(&path, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", file) < 0) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading its code source %s", url);
        return NULL;
    }
    if ((fd = open_file(path, path, &st, e)) < 0) {
        if (e->code == MCT_E_NOTFOUND)
            mct_err_set(e, MCT_E_NOTFOUND, "its code source %s has no %s", url, file);
        free(path);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (off_t)CS_MAX_CLASS)
        mct_err_set(e, MCT_E_TOOBIG, "%s is not a class file of at most %u bytes", path, CS_MAX_CLASS);
    else if ((bytes = malloc((size_t)st.st_size + 1)) == NULL)
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading %s", path);
    else if (read_at(&fd, 0, bytes, (size_t)st.st_size) < 0) {
        mct_err_set(e, MCT_E_IO, "reading %s failed", path);
        free(bytes);
        bytes = NULL;
    } else {
        *len = (size_t)st.st_size;
    }
    close(fd);
    free(path);
    return bytes;
}

/* A class name fit to be a relative file name: no empty, "." or ".."
 * component (the JVM's names have none; a hidden class's has none either). */
static int plain_name(const char *name)
{
    const char *p = name;

    for (;;) {
        size_t n = strcspn(p, "/");

        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        if (p[n] == '\0')
            return 1;
        p += n + 1;
    }
}

uint8_t *cs_read_class(JNIEnv *jni, jclass cls, const char *name, size_t *len, mct_err *e)
{
    struct where w = {0};
    char *file = NULL, *entry = NULL, *u = mutf8_dup(name);
    uint8_t *bytes = NULL;
    struct stat st;
    int fd = -1;

    *len = 0;
    if (u == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading the class file of %s", name);
        return NULL;
    }
    if (!plain_name(u)) {
        mct_err_set(e, MCT_E_UNSUPPORTED, "its name is not a relative file name");
        free(u);
        return NULL;
    }
    if (code_source(jni, cls, &w, e) < 0)
        goto out;
    if (asprintf(&file, "%s.class", u) < 0)
        file = NULL;
    else if (asprintf(&entry, "%s%s%s", w.prefix,
                      w.prefix[0] != '\0' && w.prefix[strlen(w.prefix) - 1] != '/' ? "/" : "", file) < 0)
        entry = NULL;
    if (entry == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory reading its code source %s", w.url);
        goto out;
    }
    if ((fd = open_file(w.path, w.url, &st, e)) < 0)
        goto out;
    if (S_ISDIR(st.st_mode) && !w.jar)
        bytes = read_plain(w.path, file, w.url, len, e);
    else if (S_ISDIR(st.st_mode))
        mct_err_set(e, MCT_E_UNSUPPORTED, "its code source %s is a directory, not a jar", w.url);
    else
        bytes = zip_entry(read_at, &fd, (uint64_t)st.st_size, w.url, entry, CS_MAX_CLASS, len, e);
out:
    if (fd >= 0)
        close(fd);
    where_free(&w);
    free(file);
    free(entry);
    free(u);
    return bytes;
}
