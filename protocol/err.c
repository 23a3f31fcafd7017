/* err.c — see err.h. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int mct_err_set(mct_err *e, int code, const char *fmt, ...)
{
    va_list ap;

    if (e == NULL)
        return -1;
    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int mct_err_wrap(mct_err *e, const char *fmt, ...)
{
    char old[MCT_ERR_MSG];
    va_list ap;
    int n;

    if (e == NULL)
        return -1;
    memcpy(old, e->msg, sizeof old);
    va_start(ap, fmt);
    n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %.*s",
                 (int)(sizeof e->msg - (size_t)n), old);
    return -1;
}

void mct_err_clear(mct_err *e)
{
    if (e != NULL) {
        e->code = MCT_OK;
        e->msg[0] = '\0';
    }
}

const char *mct_code_name(int code)
{
    static const char *const names[] = {
        [MCT_OK] = "ok",
        [MCT_E_NOMEM] = "nomem",
        [MCT_E_IO] = "io",
        [MCT_E_EOF] = "eof",
        [MCT_E_PROTO] = "proto",
        [MCT_E_TOOBIG] = "toobig",
        [MCT_E_CLASSFILE] = "classfile",
        [MCT_E_UNSUPPORTED] = "unsupported",
        [MCT_E_ARG] = "arg",
        [MCT_E_NOTFOUND] = "notfound",
        [MCT_E_JVMTI] = "jvmti",
        [MCT_E_INTERNAL] = "internal",
        [MCT_E_NO_CLASS] = "class_not_loaded",
        [MCT_E_NO_METHOD] = "method_not_found",
        [MCT_E_BAD_REGEX] = "bad_regex",
        [MCT_E_NOTHING] = "nothing_instrumentable",
        [MCT_E_BUSY] = "busy",
        [MCT_E_INTR] = "interrupted",
        [MCT_E_LIMIT] = "limit",
        [MCT_E_CUT] = "cut",
    };

    if (code < 0 || (size_t)code >= sizeof names / sizeof names[0] || names[code] == NULL)
        return "unknown";
    return names[code];
}
