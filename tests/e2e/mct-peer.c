/* mct-peer.c — a test helper that talks to an agent socket directly and
 * reads JSON, so that the shell tests need neither jq nor python:
 *
 *   mct-peer hello SOCKET        send hello, print the reply
 *   mct-peer raw SOCKET KIND     send a bad frame, print the reply; KIND is
 *                                garbage, badjson, badversion, oversized,
 *                                unknown-key, truncated, silent (nothing) or
 *                                stop (a valid stop on its own connection)
 *   mct-peer session-garbage SOCKET CLASS METHOD
 *                                start a session, then send garbage on it;
 *                                print what the agent sends until it closes
 *   mct-peer session-stop SOCKET CLASS METHOD REASON
 *                                start a session, then send stop with REASON
 *                                on it; print what the agent sends until it
 *                                closes (the end, with REASON as its detail)
 *   mct-peer hold SOCKET N       open N (up to 512) connections that send
 *                                nothing or half a header, print HELD, then
 *                                print the reply each gets (the agent gives
 *                                up on them)
 *   mct-peer stale-socket PATH   leave a socket file nobody listens on
 *   mct-peer fake-agent PATH V P serve one connection at PATH as an agent
 *                                whose frames carry version V and whose hello
 *                                says protocol P
 *   mct-peer forge PATH LOG KIND serve at PATH until killed as a forged KIND
 *                                (agent: a hello from JVM "forged"; attach: a
 *                                JVM's "loaded" reply), appending every byte
 *                                received to LOG
 *   mct-peer get FILE KEY[.KEY]  print a field of the JSON object in FILE
 *   mct-peer check-hello FILE    validate FILE as the agent's hello
 *
 * Replies are printed as compact JSON on stdout; exit 0 when a reply came. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"

static int connect_to(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "mct-peer: path too long\n");
        return -1;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        fprintf(stderr, "mct-peer: connect %s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* Sends n bytes, ignoring a peer that closed early (it may have replied). */
static void send_bytes(int fd, const void *buf, size_t n)
{
    if (send(fd, buf, n, MSG_NOSIGNAL) < 0)
        fprintf(stderr, "mct-peer: send: %s (reading the reply anyway)\n", strerror(errno));
}

/* Reads one reply from fd and prints it; the exit status. */
static int print_reply(int fd)
{
    mct_err e;
    json_t *m = proto_read(fd, PROTO_REPLY, 10000, &e);

    if (m == NULL) {
        fprintf(stderr, "mct-peer: no reply: %s\n", e.msg);
        return 1;
    }
    json_dumpf(m, stdout, JSON_COMPACT);
    putchar('\n');
    json_decref(m);
    return 0;
}

static int cmd_hello(const char *path)
{
    json_t *req = json_pack("{s:s, s:i, s:s}", "type", "hello", "protocol", PROTO_VERSION,
                            "client", "mct-peer");
    mct_err e;
    int fd = connect_to(path), rc;

    if (fd < 0)
        return 1;
    if (proto_write(fd, req, &e) < 0)
        fprintf(stderr, "mct-peer: %s (reading the reply anyway)\n", e.msg);
    json_decref(req);
    rc = print_reply(fd);
    close(fd);
    return rc;
}

static int cmd_raw(const char *path, const char *kind)
{
    unsigned char hdr[PROTO_HEADER_LEN];
    char body[4096];
    int fd, rc;

    fd = connect_to(path);
    if (fd < 0)
        return 1;
    if (strcmp(kind, "garbage") == 0) {
        send_bytes(fd, "GET / HTTP/1.0\r\n\r\n", 18);
    } else if (strcmp(kind, "badjson") == 0) {
        proto_header_encode(hdr, 9);
        send_bytes(fd, hdr, sizeof hdr);
        send_bytes(fd, "{not json", 9);
    } else if (strcmp(kind, "badversion") == 0) {
        proto_header_encode(hdr, 2);
        hdr[3] = 9;
        send_bytes(fd, hdr, sizeof hdr);
        send_bytes(fd, "{}", 2);
    } else if (strcmp(kind, "oversized") == 0) {
        proto_header_encode(hdr, (uint32_t)PROTO_MAX_REQUEST + 1);
        send_bytes(fd, hdr, sizeof hdr);
        memset(body, ' ', sizeof body);
        send_bytes(fd, body, sizeof body);
    } else if (strcmp(kind, "unknown-key") == 0) {
        static const char p[] = "{\"type\":\"hello\",\"protocol\":1,\"client\":\"x\",\"evil\":1}";

        proto_header_encode(hdr, sizeof p - 1);
        send_bytes(fd, hdr, sizeof hdr);
        send_bytes(fd, p, sizeof p - 1);
    } else if (strcmp(kind, "stop") == 0) {
        static const char p[] = "{\"type\":\"stop\",\"reason\":\"test\"}";

        proto_header_encode(hdr, sizeof p - 1);
        send_bytes(fd, hdr, sizeof hdr);
        send_bytes(fd, p, sizeof p - 1);
    } else if (strcmp(kind, "silent") == 0) {
        /* Send nothing: the agent must give up on its own. */
    } else if (strcmp(kind, "truncated") == 0) {
        proto_header_encode(hdr, 100);
        send_bytes(fd, hdr, 5);
        shutdown(fd, SHUT_WR);
    } else {
        fprintf(stderr, "mct-peer: unknown kind %s\n", kind);
        close(fd);
        return 2;
    }
    rc = print_reply(fd);
    close(fd);
    return rc;
}

/* Starts a session tracing cls.method (depth 2, any class), waits for its
 * plan, then sends on the session's connection garbage (stop_reason NULL)
 * or a stop with stop_reason: prints every message the agent sends until it
 * closes (after garbage: an error, no tree after it). */
static int session_then(const char *path, const char *cls, const char *method, const char *stop_reason)
{
    json_t *req = json_pack("{s:s, s:i, s:s, s:s, s:n, s:i, s:s, s:b, s:b, s:i, s:i, s:b, s:i}",
                            "type", "trace", "protocol", PROTO_VERSION, "class", cls, "method", method,
                            "desc", "depth", 2, "regex", ".*", "include_jdk", 0, "plan_only", 0,
                            "min_ns", 0, "count", 0, "verbose", 0, "client_pid", (int)getpid());
    mct_err e;
    json_t *m;
    int fd = connect_to(path), got_plan = 0;

    if (fd < 0 || req == NULL || proto_write(fd, req, &e) < 0) {
        fprintf(stderr, "mct-peer: cannot start a session\n");
        json_decref(req);
        return 1;
    }
    json_decref(req);
    while ((m = proto_read(fd, PROTO_REPLY, 10000, &e)) != NULL) {
        const char *type = proto_type(m);

        json_dumpf(m, stdout, JSON_COMPACT);
        putchar('\n');
        if (strcmp(type, "plan") == 0 && !got_plan) {
            got_plan = 1;
            if (stop_reason == NULL) {
                send_bytes(fd, "GET / HTTP/1.0\r\n\r\n", 18);
            } else {
                json_t *stop = json_pack("{s:s, s:s}", "type", "stop", "reason", stop_reason);

                if (stop == NULL || proto_write(fd, stop, &e) < 0)
                    fprintf(stderr, "mct-peer: cannot send stop\n");
                json_decref(stop);
            }
        }
        json_decref(m);
    }
    close(fd);
    return got_plan ? 0 : 1;
}

static int cmd_hold(const char *path, int n)
{
    unsigned char hdr[PROTO_HEADER_LEN];
    int fd[512], i, rc = 0;

    if (n < 1 || n > 512)
        return 2;
    proto_header_encode(hdr, 100);
    for (i = 0; i < n; i++) {
        fd[i] = connect_to(path);
        if (fd[i] < 0)
            return 1;
        /* Half of them a slow peer, half a silent one. */
        if (i % 2 == 1)
            send_bytes(fd[i], hdr, 4);
    }
    printf("HELD\n");
    fflush(stdout);
    for (i = 0; i < n; i++) {
        rc |= print_reply(fd[i]);
        close(fd[i]);
    }
    return rc;
}

static int cmd_stale_socket(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof sa.sun_path)
        return 1;
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        fprintf(stderr, "mct-peer: bind %s: %s\n", path, strerror(errno));
        return 1;
    }
    close(fd);
    return 0;
}

static int cmd_fake_agent(const char *path, int frame_version, int protocol)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    unsigned char hdr[PROTO_HEADER_LEN], buf[4096];
    char *body;
    json_t *hello;
    int lfd, fd;

    if (strlen(path) >= sizeof sa.sun_path)
        return 1;
    strcpy(sa.sun_path, path);
    lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 1) < 0) {
        fprintf(stderr, "mct-peer: listen %s: %s\n", path, strerror(errno));
        return 1;
    }
    fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        return 1;
    if (read(fd, buf, sizeof buf) < 0)
        fprintf(stderr, "mct-peer: read: %s\n", strerror(errno));
    hello = json_pack("{s:s, s:i, s:s, s:i, s:{s:s, s:s, s:s}, s:n, s:i}", "type", "hello",
                      "protocol", protocol, "agent_version", "9.9.9", "pid", 1, "jvm", "name",
                      "x", "vendor", "x", "version", "x", "session", "instrumented_classes", 0);
    body = json_dumps(hello, JSON_COMPACT);
    proto_header_encode(hdr, (uint32_t)strlen(body));
    hdr[3] = (unsigned char)frame_version;
    send_bytes(fd, hdr, sizeof hdr);
    send_bytes(fd, body, strlen(body));
    free(body);
    json_decref(hello);
    close(fd);
    close(lfd);
    unlink(path);
    return 0;
}

static int cmd_forge(const char *path, const char *log, const char *kind)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    static const char attach_reply[] = "0\nreturn code: 0\n";
    unsigned char hdr[PROTO_HEADER_LEN];
    char buf[4096], *body;
    json_t *hello;
    int lfd, logfd;

    if (strcmp(kind, "agent") != 0 && strcmp(kind, "attach") != 0) {
        fprintf(stderr, "mct-peer: unknown kind %s\n", kind);
        return 2;
    }
    hello = json_pack("{s:s, s:i, s:s, s:i, s:{s:s, s:s, s:s}, s:n, s:i}", "type", "hello",
                      "protocol", PROTO_VERSION, "agent_version", "6.6.6", "pid", 1, "jvm",
                      "name", "forged", "vendor", "forged", "version", "forged", "session",
                      "instrumented_classes", 0);
    body = json_dumps(hello, JSON_COMPACT);
    json_decref(hello);
    logfd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0666);
    if (strlen(path) >= sizeof sa.sun_path || body == NULL || logfd < 0)
        return 1;
    strcpy(sa.sun_path, path);
    lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 4) < 0) {
        fprintf(stderr, "mct-peer: listen %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        ssize_t n;

        if (fd < 0)
            continue;
        /* What a client sends first comes in one write; a checking client
         * sends nothing and closes. */
        n = read(fd, buf, sizeof buf);
        if (n > 0) {
            if (write(logfd, buf, (size_t)n) != n)
                fprintf(stderr, "mct-peer: cannot log: %s\n", strerror(errno));
            if (strcmp(kind, "agent") == 0) {
                proto_header_encode(hdr, (uint32_t)strlen(body));
                send_bytes(fd, hdr, sizeof hdr);
                send_bytes(fd, body, strlen(body));
            } else {
                send_bytes(fd, attach_reply, sizeof attach_reply - 1);
            }
        }
        close(fd);
    }
}

static json_t *load(const char *file)
{
    json_error_t err;
    json_t *j = json_load_file(file, JSON_DISABLE_EOF_CHECK, &err);

    if (j == NULL)
        fprintf(stderr, "mct-peer: %s: %s\n", file, err.text);
    return j;
}

static int cmd_get(const char *file, const char *keys)
{
    json_t *root = load(file), *v;
    char *copy, *save = NULL;

    if (root == NULL)
        return 1;
    copy = strdup(keys);
    v = root;
    for (char *k = strtok_r(copy, ".", &save); k != NULL && v != NULL;
         k = strtok_r(NULL, ".", &save))
        v = json_object_get(v, k);
    free(copy);
    if (v == NULL) {
        fprintf(stderr, "mct-peer: %s has no %s\n", file, keys);
        json_decref(root);
        return 1;
    }
    if (json_is_string(v))
        puts(json_string_value(v));
    else {
        json_dumpf(v, stdout, JSON_COMPACT | JSON_ENCODE_ANY);
        putchar('\n');
    }
    json_decref(root);
    return 0;
}

static int cmd_check_hello(const char *file)
{
    json_t *j = load(file);
    mct_err e;
    int rc = 1;

    if (j == NULL)
        return 1;
    if (proto_validate(j, PROTO_REPLY, &e) < 0)
        fprintf(stderr, "mct-peer: %s\n", e.msg);
    else if (strcmp(proto_type(j), "hello") != 0)
        fprintf(stderr, "mct-peer: a %s, not a hello\n", proto_type(j));
    else
        rc = 0;
    json_decref(j);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "hello") == 0)
        return cmd_hello(argv[2]);
    if (argc == 4 && strcmp(argv[1], "raw") == 0)
        return cmd_raw(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "get") == 0)
        return cmd_get(argv[2], argv[3]);
    if (argc == 5 && strcmp(argv[1], "fake-agent") == 0)
        return cmd_fake_agent(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc == 5 && strcmp(argv[1], "forge") == 0)
        return cmd_forge(argv[2], argv[3], argv[4]);
    if (argc == 5 && strcmp(argv[1], "session-garbage") == 0)
        return session_then(argv[2], argv[3], argv[4], NULL);
    if (argc == 6 && strcmp(argv[1], "session-stop") == 0)
        return session_then(argv[2], argv[3], argv[4], argv[5]);
    if (argc == 4 && strcmp(argv[1], "hold") == 0)
        return cmd_hold(argv[2], atoi(argv[3]));
    if (argc == 3 && strcmp(argv[1], "stale-socket") == 0)
        return cmd_stale_socket(argv[2]);
    if (argc == 3 && strcmp(argv[1], "check-hello") == 0)
        return cmd_check_hello(argv[2]);
    fprintf(stderr, "usage: mct-peer hello SOCKET | raw SOCKET KIND | hold SOCKET N | stale-socket PATH | "
                    "fake-agent PATH V P | forge PATH LOG KIND | get FILE KEYS | check-hello FILE | "
                    "session-garbage SOCKET CLASS METHOD | session-stop SOCKET CLASS METHOD REASON\n");
    return 2;
}
