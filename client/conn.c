/* conn.c — see conn.h. */
#include "config.h"

#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agentlib.h"
#include "attach.h"
#include "exit.h"
#include "intr.h"
#include "log.h"
#include "msg.h"
#include "sock.h"

int conn_open(const struct proc_target *t, int *absent, mct_err *e)
{
    char dir[PATH_MAX], path[PATH_MAX + 16];
    int tmpfd, dirfd, fd = -1;

    *absent = 0;
    tmpfd = proc_tmp(t, e);
    if (tmpfd < 0)
        return -1;
    snprintf(dir, sizeof dir, PROTO_SOCKET_DIR_FMT, t->tmp, (long)t->st.nspid);
    snprintf(path, sizeof path, "%s/%s", dir, PROTO_SOCKET_NAME);
    switch (sock_clear_dead_dir(t, tmpfd, strrchr(dir, '/') + 1, dir, e)) {
    case 1:
        log_error("removed %s, left by a dead agent of another user (the JVM's pid was reused)",
                  dir);
        break;
    case -1:
        return -1;
    }
    dirfd = sock_open_private_dir(t, tmpfd, strrchr(dir, '/') + 1, dir, "the agent", e);
    if (dirfd >= 0) {
        fd = sock_connect_at(t, dirfd, PROTO_SOCKET_NAME, path, "the agent", e);
        close(dirfd);
    }
    if (fd >= 0) {
        static int said;

        /* A run connects more than once (hello, then the request): say it once. */
        if (!said++)
            log_verbose("connected to the agent at %s", path);
        return fd;
    }
    *absent = e->code == MCT_E_NOTFOUND;
    return -1;
}

/* Sends req on fd and returns the first reply, validated (caller decrefs),
 * within timeout_ms (< 0: no limit); NULL with e set. A reply the agent sent
 * before closing early (a refused peer) is still read. */
static json_t *conn_exchange(int fd, const json_t *req, int timeout_ms, mct_err *e)
{
    mct_err werr;
    json_t *reply;

    if (proto_write(fd, req, &werr) == 0) {
        int rc = intr_wait_readable(fd, timeout_ms, e);

        if (rc == 0)
            mct_err_set(e, MCT_E_IO, "no answer within %d s", timeout_ms / 1000);
        return rc > 0 ? proto_read(fd, PROTO_REPLY, timeout_ms, e) : NULL;
    }
    /* An agent that refuses a peer replies and closes without reading. */
    reply = proto_read(fd, PROTO_REPLY, 1000, e);
    if (reply == NULL)
        *e = werr;
    return reply;
}

/* ---- loading the agent -------------------------------------------------- */

/* Explains a non-zero return code of Agent_OnAttach. */
static int explain_agent_rc(const struct proc_target *t, int rc, mct_err *e)
{
    switch (rc) {
    case PROTO_RC_OPTIONS:
        return mct_err_set(e, MCT_E_INTERNAL, "the agent rejected its options (see the "
                           "JVM's stderr); this is a bug of mcalltree");
    case PROTO_RC_JVMTI:
        return mct_err_set(e, MCT_E_JVMTI, "the agent could not set up JVMTI in JVM %d; its "
                           "stderr says why", (int)t->pid);
    case PROTO_RC_UNSAFE_DIR:
        return mct_err_set(e, MCT_E_IO, "the agent refused to serve: /tmp/.mcalltree-%d in "
                           "the JVM's /tmp is not a private (0700) directory of the JVM's "
                           "user; remove it and try again", (int)t->st.nspid);
    case PROTO_RC_SOCKET:
        return mct_err_set(e, MCT_E_IO, "the agent could not open its socket in the JVM's "
                           "/tmp; the JVM's stderr says why");
    default:
        return mct_err_set(e, MCT_E_JVMTI, "Agent_OnAttach of the agent returned %d", rc);
    }
}

/* Turns the JVM's answer to `load` into 0 (an agent serves) or -1 with e. */
static int explain_reply(const struct proc_target *t, const struct attach_reply *r,
                         const char *path, mct_err *e)
{
    switch (r->outcome) {
    case ATTACH_LOADED:
        log_verbose("the agent is loaded");
        return 0;
    case ATTACH_AGENT_FAILED:
        if (r->agent_rc == PROTO_RC_OTHER_AGENT) {
            log_verbose("another copy of the agent serves already");
            return 0;
        }
        return explain_agent_rc(t, r->agent_rc, e);
    case ATTACH_NOT_LOADED: {
        /* HotSpot says "<path> was not loaded." before dlerror's text. */
        const char *why = strstr(r->message, "was not loaded.; ");

        why = why != NULL ? why + strlen("was not loaded.; ") : r->message;
        return mct_err_set(e, MCT_E_IO, "JVM %d could not load the agent library %s: %s",
                           (int)t->pid, path, *why != '\0' ? why : "no reason given");
    }
    case ATTACH_DYNLOAD_DISABLED:
        return mct_err_set(e, MCT_E_UNSUPPORTED, "JVM %d does not allow loading agents while "
                           "it runs (-XX:-EnableDynamicAgentLoading); restart it with "
                           "-XX:+EnableDynamicAgentLoading", (int)t->pid);
    case ATTACH_REFUSED:
        break;
    }
    return mct_err_set(e, MCT_E_IO, "JVM %d refused to load the agent: %s", (int)t->pid,
                       r->message);
}

/* Loads the agent into t; 0 or -1 with e set. */
static int load_agent(const struct proc_target *t, const char *agent_opt, mct_err *e)
{
    char path[PATH_MAX];
    struct agentlib_use use;
    struct attach_reply reply;
    struct proc_creds creds;
    int fd, rc = -1;

    if (agentlib_find(agent_opt, path, sizeof path, e) < 0)
        return -1;
    /* Opened as ourselves: the JVM's user may not be able to read it. */
    fd = agentlib_open(path, e);
    if (fd < 0)
        return -1;
    if (proc_become(t, &creds, e) == 0) {
        if (agentlib_prepare(fd, path, t, &use, e) == 0) {
            if (attach_load(t, use.target_path, "", &reply, e) == 0) {
                log_verbose("attach reply: status %d, %s", reply.status,
                            reply.message[0] != '\0' ? reply.message : "no text");
                rc = explain_reply(t, &reply, path, e);
            }
            agentlib_release(&use);
        }
        proc_restore(&creds);
    }
    close(fd);
    return rc;
}

/* ---- hello -------------------------------------------------------------- */

/* Asks the agent of t for hello. NULL with *absent = 1 when none listens,
 * else NULL with e and *exit_code set on failure. */
static json_t *ask_hello(const struct proc_target *t, int *absent, int *exit_code, mct_err *e)
{
    json_t *req, *reply;
    struct msg_error err;
    struct msg_hello hello;
    int fd, protocol;

    *exit_code = MCT_EXIT_ATTACH;
    fd = conn_open(t, absent, e);
    if (fd < 0)
        return NULL;
    req = msg_hello_req_write(&(struct msg_hello_req){ .client = PACKAGE_VERSION });
    if (req == NULL) {
        close(fd);
        *exit_code = MCT_EXIT_INTERNAL;
        mct_err_set(e, MCT_E_NOMEM, "out of memory");
        return NULL;
    }
    reply = conn_exchange(fd, req, CONN_HELLO_TIMEOUT_MS, e);
    json_decref(req);
    close(fd);
    if (reply == NULL) {
        if (e->code == MCT_E_INTR) {
            /* Stopping when asked is a clean end (SPEC §2). */
            *exit_code = MCT_EXIT_OK;
            mct_err_wrap(e, "waiting for the hello of the agent in JVM %d", (int)t->pid);
        } else if (e->code == MCT_E_UNSUPPORTED) {
            mct_err_wrap(e, "the agent in JVM %d speaks another protocol (it was loaded by "
                         "another version of mcalltree; use that version, or restart the "
                         "JVM)", (int)t->pid);
        } else if (e->code != MCT_E_IO && e->code != MCT_E_EOF) {
            *exit_code = MCT_EXIT_INTERNAL;
        } else {
            mct_err_wrap(e, "no hello from the agent in JVM %d", (int)t->pid);
        }
        return NULL;
    }
    if (strcmp(proto_type(reply), "error") == 0 && msg_error_read(reply, &err, e) == 0) {
        *exit_code = proto_code_exit(err.code);
        mct_err_set(e, MCT_E_PROTO, "the agent in JVM %d answered: %s", (int)t->pid, err.message);
        json_decref(reply);
        return NULL;
    }
    protocol = msg_hello_read(reply, &hello, e) == 0 ? hello.protocol : -1;
    msg_hello_clear(&hello);
    if (protocol != PROTO_VERSION) {
        mct_err_set(e, MCT_E_UNSUPPORTED, "the agent in JVM %d answered hello with a \"%s\" of "
                    "protocol %lld; it was loaded by another version of mcalltree (use that "
                    "version, or restart the JVM)", (int)t->pid, proto_type(reply),
                    (long long)json_integer_value(json_object_get(reply, "protocol")));
        json_decref(reply);
        return NULL;
    }
    return reply;
}

json_t *conn_ensure_agent(const struct proc_target *t, const char *agent_opt, int *exit_code,
                          mct_err *e)
{
    json_t *hello;
    int absent;

    hello = ask_hello(t, &absent, exit_code, e);
    if (hello != NULL || !absent)
        return hello;
    log_verbose("no agent in JVM %d yet; loading it", (int)t->pid);
    *exit_code = MCT_EXIT_ATTACH;
    if (load_agent(t, agent_opt, e) < 0) {
        if (e->code == MCT_E_INTR)
            *exit_code = MCT_EXIT_OK;
        return NULL;
    }
    hello = ask_hello(t, &absent, exit_code, e);
    if (hello == NULL && absent)
        mct_err_wrap(e, "the agent was loaded into JVM %d but does not answer (see the JVM's "
                     "stderr)", (int)t->pid);
    return hello;
}

json_t *conn_trace_request_new(const struct cli *c)
{
    struct mct_request req = c->req;

    req.client_pid = getpid();
    req.compact = 1;
    return msg_trace_write(&req);
}
