/* test_export.c — the export queue and its sender (client/export.c) against a
 * tiny HTTP server run by the test on 127.0.0.1, answering a script of
 * statuses (with Retry-After, a body, a delay), or not there at all. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "export.h"

/* One scripted answer; past the script, 200 with no body. */
struct answer {
    int status;
    int retry_after;                /* seconds, 0: no header */
    int delay_ms;                   /* before answering */
    const char *body;
};

struct server {
    int fd;
    int port;
    const struct answer *script;
    int n_script;
    int requests;                   /* answered or not */
    size_t body_bytes;              /* request bodies received */
    char last_body[256];
    pthread_t thread;
};

/* Reads one request (headers, then Content-Length bytes) from c; 0 or -1. */
static int read_request(struct server *s, int c)
{
    char buf[1 << 16];
    size_t have = 0, need = 0;
    char *end = NULL;

    while (end == NULL || have < need) {
        ssize_t n = read(c, buf + have, sizeof buf - 1 - have);

        if (n <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
        if (end == NULL && (end = strstr(buf, "\r\n\r\n")) != NULL) {
            const char *cl = strcasestr(buf, "Content-Length:");

            need = (size_t)(end + 4 - buf) + (cl ? strtoul(cl + 15, NULL, 10) : 0);
            if (need > sizeof buf - 1)
                return -1;
        }
    }
    s->body_bytes += need - (size_t)(end + 4 - buf);
    snprintf(s->last_body, sizeof s->last_body, "%s", end + 4);
    return 0;
}

static void *serve(void *arg)
{
    struct server *s = arg;
    int c;

    while ((c = accept(s->fd, NULL, NULL)) >= 0) {
        struct answer a = {200, 0, 0, ""};
        char head[256];
        int len;

        if (read_request(s, c) == 0) {
            if (s->requests < s->n_script)
                a = s->script[s->requests];
            s->requests++;
            if (a.delay_ms)
                usleep((useconds_t)a.delay_ms * 1000);
            len = snprintf(head, sizeof head, "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nConnection: close\r\n", a.status,
                           strlen(a.body));
            if (a.retry_after)
                len += snprintf(head + len, sizeof head - (size_t)len, "Retry-After: %d\r\n", a.retry_after);
            len += snprintf(head + len, sizeof head - (size_t)len, "\r\n");
            if (write(c, head, (size_t)len) < 0 || write(c, a.body, strlen(a.body)) < 0)
                s->requests += 0;   /* the client gave up: nothing to do */
        }
        close(c);
    }
    return NULL;
}

/* Starts a server answering script (n answers) on a free port. */
static void server_start(struct server *s, const struct answer *script, int n)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;

    memset(s, 0, sizeof *s);
    s->script = script;
    s->n_script = n;
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(s->fd >= 0);
    CHECK(bind(s->fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(s->fd, 16) == 0);
    CHECK(getsockname(s->fd, (struct sockaddr *)&a, &al) == 0);
    s->port = ntohs(a.sin_port);
    CHECK(pthread_create(&s->thread, NULL, serve, s) == 0);
}

static void server_stop(struct server *s)
{
    shutdown(s->fd, SHUT_RDWR);
    pthread_join(s->thread, NULL);
    close(s->fd);
}

/* A port nothing listens on: bound, then closed. */
static int dead_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* Pushes batches of 10 items, then stops; the final counters. */
static struct export_stats run(int port, struct export_opts o, int batches, int *queued)
{
    char url[64];
    struct export_stats st = {0};
    mct_err e;
    exporter *x;

    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/traces", port);
    o.url = url;
    if (o.backoff_ms == 0)
        o.backoff_ms = 10;
    x = export_start(&o, &e);
    CHECK(x != NULL);
    if (x == NULL)
        return st;
    *queued = 0;
    for (int i = 0; i < batches; i++)
        *queued += export_push(x, "{\"resourceSpans\":[]}", 20, 10) == 0;
    export_stop(x, &st);
    return st;
}

int main(void)
{
    struct server s;
    struct export_stats st;
    struct export_opts o;
    int queued;
    mct_err e;

    signal(SIGPIPE, SIG_IGN);   /* a client that timed out closed the connection */

    /* accepted: everything sent, the body arrived whole */
    server_start(&s, NULL, 0);
    st = run(s.port, (struct export_opts){0}, 3, &queued);
    server_stop(&s);
    CHECK_INT(queued, 3);
    CHECK_INT(st.sent, 30);
    CHECK_INT(st.batches, 3);
    CHECK_INT(st.dropped, 0);
    CHECK_INT(st.retries, 0);
    CHECK_INT(s.requests, 3);
    CHECK_INT(s.body_bytes, 60);
    CHECK_STR(s.last_body, "{\"resourceSpans\":[]}");

    /* 503 with Retry-After, 429, 502, 504: tried again, then accepted */
    {
        static const struct answer script[] = {{503, 1, 0, ""}, {429, 0, 0, ""}, {502, 0, 0, ""}, {504, 0, 0, ""}};

        server_start(&s, script, 4);
        st = run(s.port, (struct export_opts){.max_tries = 5}, 1, &queued);
        server_stop(&s);
        CHECK_INT(st.retries, 4);
        CHECK_INT(st.sent, 10);
        CHECK_INT(st.dropped, 0);
        CHECK_INT(s.requests, 5);
        CHECK_INT(st.last_status, 200);
    }

    /* tries spent: dropped after max_tries requests */
    {
        static const struct answer script[] = {{503, 0, 0, ""}, {503, 0, 0, ""}, {503, 0, 0, ""}};

        server_start(&s, script, 3);
        st = run(s.port, (struct export_opts){.max_tries = 3}, 1, &queued);
        server_stop(&s);
        CHECK_INT(s.requests, 3);
        CHECK_INT(st.retries, 2);
        CHECK_INT(st.dropped, 10);
        CHECK_INT(st.sent, 0);
    }

    /* another 4xx: dropped at once, its body in the last failure */
    {
        static const struct answer script[] = {{400, 0, 0, "bad span"}};
        char line[400];

        server_start(&s, script, 1);
        st = run(s.port, (struct export_opts){0}, 2, &queued);
        server_stop(&s);
        CHECK_INT(s.requests, 2);
        CHECK_INT(st.retries, 0);
        CHECK_INT(st.dropped, 10);
        CHECK_INT(st.sent, 10);
        CHECK(strstr(st.last_error, "HTTP 400: bad span") != NULL);
        export_describe(&st, "otlp", "spans", line, sizeof line);
        CHECK(strncmp(line, "otlp: 10 spans sent, 0 rejected, 10 dropped, 0 retries; last failure: ", 70) == 0);
    }

    /* partial success: the rejected spans are read (a string or a number) */
    {
        static const struct answer script[] = {
            {200, 0, 0, "{\"partialSuccess\":{\"rejectedSpans\":\"3\",\"errorMessage\":\"x\"}}"},
            {200, 0, 0, "{\"partialSuccess\":{\"rejectedSpans\":2}}"},
            {200, 0, 0, "{\"partialSuccess\":{}}"}};

        server_start(&s, script, 3);
        st = run(s.port, (struct export_opts){.partial_items = "rejectedSpans"}, 3, &queued);
        server_stop(&s);
        CHECK_INT(st.sent, 30);
        CHECK_INT(st.rejected, 5);
    }

    /* down: pushes return at once, the stop gives up within its bound,
     * every item is counted dropped */
    st = run(dead_port(), (struct export_opts){.stop_ms = 300, .max_tries = 1000}, 5, &queued);
    CHECK_INT(queued, 5);
    CHECK_INT(st.sent, 0);
    CHECK_INT(st.dropped, 50);
    CHECK(st.last_error[0] != '\0');

    /* slow: a request past its timeout is tried again, then dropped */
    {
        static const struct answer script[] = {{200, 0, 600, ""}, {200, 0, 600, ""}};

        server_start(&s, script, 2);
        st = run(s.port, (struct export_opts){.timeout_ms = 100, .max_tries = 2}, 1, &queued);
        server_stop(&s);
        CHECK_INT(st.retries, 1);
        CHECK_INT(st.dropped, 10);
        CHECK_INT(st.sent, 0);
    }

    /* the bound: a slow server, a queue room for few batches; what does not
     * fit is dropped and counted, what fit is sent, the peak within the bound */
    {
        static const struct answer script[] = {{200, 0, 300, ""}};

        server_start(&s, script, 1);
        o = (struct export_opts){.max_bytes = 200};
        st = run(s.port, o, 50, &queued);
        server_stop(&s);
        CHECK(queued < 50);
        CHECK(queued >= 1);
        CHECK_INT(st.sent, (uint64_t)queued * 10);
        CHECK_INT(st.dropped, (uint64_t)(50 - queued) * 10);
        CHECK(st.peak_bytes <= 200);
        CHECK(st.peak_bytes > 0);
    }

    /* a bad URL is refused with a message saying what to give */
    o = (struct export_opts){.url = "localhost:4318"};
    CHECK(export_start(&o, &e) == NULL);
    CHECK_INT(e.code, MCT_E_ARG);
    CHECK(strstr(e.msg, "http://") != NULL);
    return check_status();
}
