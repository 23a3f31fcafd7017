/* export.c — see export.h. One mutex guards the queue and the counters;
 * the sender holds it only to take a batch and to count what became of it,
 * never across a request, so export_push waits at most for that. */
#include "export.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "buf.h"

#define DEF_MAX_BYTES ((size_t)8 << 20)
#define DEF_TRIES 5
#define DEF_BACKOFF_MS 200
#define DEF_MAX_BACKOFF_MS 30000
#define DEF_TIMEOUT_MS 10000
#define DEF_STOP_MS 5000

struct batch {
    struct batch *next;
    uint64_t items;
    size_t len;
    unsigned char data[];
};

struct exporter {
    pthread_mutex_t mu;
    pthread_cond_t cv;              /* a batch queued, or stopping */
    struct batch *head, *tail;
    size_t bytes;                   /* queued and in flight, headers included */
    struct export_stats st;
    atomic_int stopping;
    atomic_ullong deadline_ms;      /* monotonic; meaningful once stopping */
    struct export_opts o;
    char *url, *ctype_hdr, *partial;
    pthread_t thread;
    CURL *curl;
    struct curl_slist *hdrs;
    mct_buf body;                   /* the last response, at most EXPORT_BODY_MAX */
};

enum outcome { SENT, RETRY, REFUSED };

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int past_deadline(exporter *x)
{
    return atomic_load(&x->stopping) && now_ms() >= atomic_load(&x->deadline_ms);
}

static size_t batch_bytes(const struct batch *b)
{
    return sizeof *b + b->len;
}

/* Notes the last failure (under x->mu). */
static void set_error(exporter *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(exporter *x, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(x->st.last_error, sizeof x->st.last_error, fmt, ap);
    va_end(ap);
}

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    exporter *x = arg;
    size_t len = size * n, room = EXPORT_BODY_MAX - x->body.len;

    buf_bytes(&x->body, p, len < room ? len : room);
    return len;
}

/* Ends a request in flight once export_stop's bound is past. */
static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    return past_deadline(arg);
}

/* The items partialSuccess says were rejected, from the response body. */
static uint64_t rejected_items(exporter *x)
{
    json_t *j, *ps, *v;
    uint64_t n = 0;

    if (x->partial == NULL || x->body.len == 0)
        return 0;
    j = json_loadb((const char *)x->body.data, x->body.len, 0, NULL);
    ps = json_object_get(j, "partialSuccess");
    v = json_object_get(ps, x->partial);
    /* OTLP's JSON mapping writes an int64 as a string; accept both. */
    if (json_is_integer(v) && json_integer_value(v) > 0)
        n = (uint64_t)json_integer_value(v);
    else if (json_is_string(v))
        n = strtoull(json_string_value(v), NULL, 10);
    json_decref(j);
    return n;
}

/* One POST of b: its outcome, the status into *status (0: no response),
 * the server's Retry-After (seconds, 0: none) into *retry_after. */
static enum outcome post(exporter *x, const struct batch *b, long *status, long *retry_after)
{
    CURLcode rc;
    curl_off_t ra = 0;

    buf_reset(&x->body);
    curl_easy_setopt(x->curl, CURLOPT_POSTFIELDS, (const char *)b->data);
    curl_easy_setopt(x->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)b->len);
    rc = curl_easy_perform(x->curl);
    *status = 0;
    *retry_after = 0;
    if (rc != CURLE_OK) {
        pthread_mutex_lock(&x->mu);
        set_error(x, "%s: %s", x->url, curl_easy_strerror(rc));
        pthread_mutex_unlock(&x->mu);
        return RETRY;       /* no answer: the server may be down or slow */
    }
    curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, status);
    if (curl_easy_getinfo(x->curl, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
        *retry_after = (long)ra;
    if (*status >= 200 && *status < 300)
        return SENT;
    pthread_mutex_lock(&x->mu);
    set_error(x, "%s: HTTP %ld%s%.*s", x->url, *status, x->body.len ? ": " : "",
              (int)(x->body.len < 100 ? x->body.len : 100), x->body.len ? (const char *)x->body.data : "");
    pthread_mutex_unlock(&x->mu);
    if (*status == 429 || *status == 502 || *status == 503 || *status == 504)
        return RETRY;
    return REFUSED;
}

/* Waits ms, or less when stopping makes the deadline come first; 0, or -1
 * when the deadline comes before the wait ends (then it does not wait). */
static int wait_ms(exporter *x, uint64_t ms)
{
    uint64_t until = now_ms() + ms;
    struct timespec ts;
    int rc = 0;

    pthread_mutex_lock(&x->mu);
    for (;;) {
        uint64_t now = now_ms();

        if (atomic_load(&x->stopping) && until > atomic_load(&x->deadline_ms)) {
            rc = -1;
            break;
        }
        if (now >= until)
            break;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += (time_t)((until - now) / 1000);
        ts.tv_nsec += (long)((until - now) % 1000) * 1000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&x->cv, &x->mu, &ts);
    }
    pthread_mutex_unlock(&x->mu);
    return rc;
}

/* Sends b with OTLP's retry rules; counts what became of it. */
static void send_batch(exporter *x, const struct batch *b)
{
    uint64_t backoff = x->o.backoff_ms;
    enum outcome out = RETRY;
    long status = 0, retry_after = 0;

    for (unsigned try = 1; try <= x->o.max_tries && !past_deadline(x); try++) {
        uint64_t wait;

        out = post(x, b, &status, &retry_after);
        pthread_mutex_lock(&x->mu);
        x->st.last_status = (int)status;
        pthread_mutex_unlock(&x->mu);
        if (out != RETRY || try == x->o.max_tries)
            break;
        wait = retry_after > 0 ? (uint64_t)retry_after * 1000 : backoff;
        if (wait > x->o.max_backoff_ms)
            wait = x->o.max_backoff_ms;
        backoff = backoff * 2 > x->o.max_backoff_ms ? x->o.max_backoff_ms : backoff * 2;
        if (wait_ms(x, wait) < 0)
            break;
        pthread_mutex_lock(&x->mu);
        x->st.retries++;
        pthread_mutex_unlock(&x->mu);
    }
    pthread_mutex_lock(&x->mu);
    if (out == SENT) {
        uint64_t rej = rejected_items(x);

        x->st.sent += b->items;
        x->st.batches++;
        x->st.rejected += rej < b->items ? rej : b->items;
    } else {
        x->st.dropped += b->items;
    }
    pthread_mutex_unlock(&x->mu);
}

static void *sender(void *arg)
{
    exporter *x = arg;

    pthread_mutex_lock(&x->mu);
    for (;;) {
        struct batch *b;

        while (x->head == NULL && !atomic_load(&x->stopping))
            pthread_cond_wait(&x->cv, &x->mu);
        if (x->head == NULL)
            break;
        b = x->head;
        x->head = b->next;
        if (x->head == NULL)
            x->tail = NULL;
        pthread_mutex_unlock(&x->mu);
        if (past_deadline(x)) {
            pthread_mutex_lock(&x->mu);
            x->st.dropped += b->items;
        } else {
            send_batch(x, b);
            pthread_mutex_lock(&x->mu);
        }
        x->bytes -= batch_bytes(b);
        free(b);
    }
    pthread_mutex_unlock(&x->mu);
    return NULL;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void free_exporter(exporter *x)
{
    if (x->curl != NULL)
        curl_easy_cleanup(x->curl);
    curl_slist_free_all(x->hdrs);
    buf_free(&x->body);
    free(x->url);
    free(x->ctype_hdr);
    free(x->partial);
    pthread_cond_destroy(&x->cv);
    pthread_mutex_destroy(&x->mu);
    free(x);
}

/* The handle's options, set once for every request. */
static int setup_curl(exporter *x)
{
    struct curl_slist *h;

    x->hdrs = curl_slist_append(NULL, x->ctype_hdr);
    /* curl's "Expect: 100-continue" would stall each large POST for a second. */
    h = x->hdrs != NULL ? curl_slist_append(x->hdrs, "Expect:") : NULL;
    if (h == NULL)
        return -1;
    x->hdrs = h;
    return -(curl_easy_setopt(x->curl, CURLOPT_URL, x->url) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_POST, 1L) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_HTTPHEADER, x->hdrs) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_TIMEOUT_MS, (long)x->o.timeout_ms) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_WRITEFUNCTION, on_body) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_WRITEDATA, x) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_NOPROGRESS, 0L) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_XFERINFOFUNCTION, on_progress) != CURLE_OK ||
             curl_easy_setopt(x->curl, CURLOPT_XFERINFODATA, x) != CURLE_OK);
}

exporter *export_start(const struct export_opts *o, mct_err *e)
{
    exporter *x;
    pthread_condattr_t ca;
    int rc;

    if (o->url == NULL || (strncmp(o->url, "http://", 7) != 0 && strncmp(o->url, "https://", 8) != 0)) {
        mct_err_set(e, MCT_E_ARG, "export URL '%s': give an http:// or https:// URL",
                    o->url != NULL ? o->url : "");
        return NULL;
    }
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK) {
        mct_err_set(e, MCT_E_INTERNAL, "libcurl did not start: %s", curl_easy_strerror(curl_init_rc));
        return NULL;
    }
    x = calloc(1, sizeof *x);
    if (x == NULL) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory starting an exporter");
        return NULL;
    }
    pthread_mutex_init(&x->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&x->cv, &ca);
    pthread_condattr_destroy(&ca);
    buf_init(&x->body);
    x->o = *o;
    x->o.max_bytes = o->max_bytes ? o->max_bytes : DEF_MAX_BYTES;
    x->o.max_tries = o->max_tries ? o->max_tries : DEF_TRIES;
    x->o.backoff_ms = o->backoff_ms ? o->backoff_ms : DEF_BACKOFF_MS;
    x->o.max_backoff_ms = o->max_backoff_ms ? o->max_backoff_ms : DEF_MAX_BACKOFF_MS;
    x->o.timeout_ms = o->timeout_ms ? o->timeout_ms : DEF_TIMEOUT_MS;
    x->o.stop_ms = o->stop_ms ? o->stop_ms : DEF_STOP_MS;
    x->url = strdup(o->url);
    if (asprintf(&x->ctype_hdr, "Content-Type: %s", o->content_type ? o->content_type : "application/json") < 0)
        x->ctype_hdr = NULL;
    x->partial = o->partial_items != NULL ? strdup(o->partial_items) : NULL;
    x->curl = curl_easy_init();
    if (x->url == NULL || x->ctype_hdr == NULL || (o->partial_items != NULL && x->partial == NULL) ||
        x->curl == NULL || setup_curl(x) < 0) {
        mct_err_set(e, MCT_E_NOMEM, "out of memory starting an exporter to %s", o->url);
        free_exporter(x);
        return NULL;
    }
    rc = pthread_create(&x->thread, NULL, sender, x);
    if (rc != 0) {
        mct_err_set(e, MCT_E_INTERNAL, "cannot start the exporter's thread: %s", strerror(rc));
        free_exporter(x);
        return NULL;
    }
    return x;
}

int export_push(exporter *x, const void *data, size_t len, uint64_t items)
{
    struct batch *b = NULL;
    int rc = -1;

    pthread_mutex_lock(&x->mu);
    if (!atomic_load(&x->stopping) && len <= x->o.max_bytes && x->bytes + sizeof *b + len <= x->o.max_bytes)
        b = malloc(sizeof *b + len);
    if (b != NULL) {
        b->next = NULL;
        b->items = items;
        b->len = len;
        memcpy(b->data, data, len);
        if (x->tail != NULL)
            x->tail->next = b;
        else
            x->head = b;
        x->tail = b;
        x->bytes += batch_bytes(b);
        if (x->bytes > x->st.peak_bytes)
            x->st.peak_bytes = x->bytes;
        pthread_cond_signal(&x->cv);
        rc = 0;
    } else {
        x->st.dropped += items;
    }
    pthread_mutex_unlock(&x->mu);
    return rc;
}

void export_get_stats(exporter *x, struct export_stats *st)
{
    pthread_mutex_lock(&x->mu);
    *st = x->st;
    pthread_mutex_unlock(&x->mu);
}

void export_stop(exporter *x, struct export_stats *st)
{
    pthread_mutex_lock(&x->mu);
    atomic_store(&x->deadline_ms, now_ms() + x->o.stop_ms);
    atomic_store(&x->stopping, 1);
    pthread_cond_broadcast(&x->cv);
    pthread_mutex_unlock(&x->mu);
    pthread_join(x->thread, NULL);
    if (st != NULL)
        *st = x->st;
    free_exporter(x);
}

void export_describe(const struct export_stats *st, const char *name, const char *items, char *out, size_t n)
{
    snprintf(out, n, "%s: %llu %s sent, %llu rejected, %llu dropped, %llu retries%s%s", name,
             (unsigned long long)st->sent, items, (unsigned long long)st->rejected,
             (unsigned long long)st->dropped, (unsigned long long)st->retries,
             st->last_error[0] ? "; last failure: " : "", st->last_error);
}
