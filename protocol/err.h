/* err.h — errors as a code plus a message buffer, shared by agent, client
 * and protocol. A function that fails fills the caller's mct_err and returns
 * -1 (or NULL); the caller owns the struct, usually on its stack. */
#ifndef MCT_ERR_H
#define MCT_ERR_H

#include <stddef.h>

enum mct_code {
    MCT_OK = 0,
    MCT_E_NOMEM,        /* allocation failed */
    MCT_E_IO,           /* read/write/socket failure (errno in the message) */
    MCT_E_EOF,          /* peer closed the connection */
    MCT_E_PROTO,        /* malformed protocol frame or message */
    MCT_E_TOOBIG,       /* frame or input over its size cap */
    MCT_E_CLASSFILE,    /* malformed class file */
    MCT_E_UNSUPPORTED,  /* well-formed input this code cannot handle */
    MCT_E_ARG,          /* bad argument or request */
    MCT_E_NOTFOUND,     /* class, method or file not found */
    MCT_E_JVMTI,        /* a JVMTI or JNI call failed */
    MCT_E_INTERNAL,     /* a bug: an invariant did not hold */
    /* Why the agent refuses a trace request (client exit status 3). */
    MCT_E_NO_CLASS,     /* the entry class is not loaded */
    MCT_E_NO_METHOD,    /* the entry class has no such method */
    MCT_E_BAD_REGEX,    /* the callee regex does not compile */
    MCT_E_NOTHING,      /* nothing in the plan can be instrumented */
    MCT_E_BUSY,         /* another session is running */
    MCT_E_INTR,         /* the user interrupted a wait (SIGINT, SIGTERM) */
    MCT_E_LIMIT,        /* planning hit one of its bounds (client exit status 3) */
    MCT_E_CUT           /* the peer closed the connection in the middle of a frame */
};

#define MCT_ERR_MSG 512

typedef struct mct_err {
    int code;               /* enum mct_code */
    char msg[MCT_ERR_MSG];  /* NUL-terminated, no trailing newline */
} mct_err;

/* Sets e (if not NULL) to code and the formatted message; returns -1. */
int mct_err_set(mct_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefixes e->msg with the formatted context ("while X: <old msg>"); returns -1. */
int mct_err_wrap(mct_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Resets e to MCT_OK with an empty message. */
void mct_err_clear(mct_err *e);

/* A short stable name for a code ("proto", "classfile", ...). */
const char *mct_code_name(int code);

#endif
