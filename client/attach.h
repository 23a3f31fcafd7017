/* attach.h — the HotSpot dynamic attach protocol on Linux, without any JDK
 * tool: wake the JVM's attach listener (trigger file + SIGQUIT), connect to
 * its socket TMP/.java_pid<nspid>, send protocol-1 `load`, read the reply of
 * any JDK from 8 to 25. */
#ifndef MCT_ATTACH_H
#define MCT_ATTACH_H

#include <stddef.h>

#include "err.h"
#include "proc.h"

/* How long the attach listener has to appear after the first SIGQUIT. */
#define ATTACH_WAIT_MS 10000

/* What a `load` reply says. */
enum attach_outcome {
    ATTACH_LOADED,          /* Agent_OnAttach returned 0 */
    ATTACH_AGENT_FAILED,    /* Agent_OnAttach returned agent_rc != 0 */
    ATTACH_NOT_LOADED,      /* the JVM could not load the library (dlerror in message) */
    ATTACH_DYNLOAD_DISABLED,/* -XX:-EnableDynamicAgentLoading */
    ATTACH_REFUSED          /* any other failure, explained by message */
};

struct attach_reply {
    enum attach_outcome outcome;
    int status;             /* the reply's first line */
    int agent_rc;           /* for ATTACH_LOADED / ATTACH_AGENT_FAILED */
    char message[512];      /* the JVM's text, lines joined by "; " ("" if none) */
};

/* Interprets the raw reply of n bytes to `load`: JDK 8 "0\n<rc>\n"; JDK 9-20
 * "0\nreturn code: <rc>\n" or "-1\n<message>"; JDK 21+ "0\n" then either
 * "return code: <rc>" or a message. -1 with e set when it is none of them. */
int attach_parse_load_reply(const char *buf, size_t n, struct attach_reply *r, mct_err *e);

/* Asks the JVM t to load the agent library at path (as the JVM sees it) with
 * options, starting its attach listener first if needed, and fills *r.
 * Call with the target's identity (proc_become). -1 with e set (a message
 * for the user, with the fix) when the JVM could not be asked. */
int attach_load(const struct proc_target *t, const char *path, const char *options,
                struct attach_reply *r, mct_err *e);

#endif
