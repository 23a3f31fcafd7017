/* test_async.c — --follow-async's holder (agent/runtime/async.h) over trees
 * built from probe events: an entry call waits for its tasks' runs, which
 * may come before or after it, and is released once they all came (nested
 * ones too) or its wait is over; each run goes under the node that handed
 * it off with its thread, hand-off time (from the entry call's start, for
 * nested tasks too) and queue time; a hand-off whose site threw is
 * rejected, one still missing pending (cancelled when its future is
 * done), one run inline has no node; a stream's function gives a node per
 * thread that ran it. */
#include <stdio.h>
#include <string.h>

#include "async.h"
#include "check.h"
#include "methods.h"
#include "tree.h"

static int32_t ROOT, W, X, RUN;

static probe_ev ev_buf[64];
static size_t n_ev;
static call_tab tab;
static const clock_cal cal = {.tick0 = 0, .ns_per_tick = 1.0, .wall0 = 1000};

static void ev(uint32_t kind, int32_t id, uint64_t t)
{
    ev_buf[n_ev++] = (probe_ev){.t = t, .id = id, .kind = kind};
}

/* Builds the events so far into a model (thread: its name) and gives the
 * call to a at now_ns; the events are reset. */
static void take(async *a, const char *thread, uint64_t now_ns)
{
    tree_opts o = {.cal = cal};
    mct_call c = {0};
    mct_err err;
    tree *t = tree_build(ev_buf, n_ev, &o, &err);

    CHECK(t != NULL);
    if (t != NULL) {
        CHECK_INT(async_wants(t), 1);
        CHECK_INT(tree_call(t, &tab, &c, 1, 7, thread, NULL, &err), 0);
        CHECK_INT(async_take(a, &c, t, 0, now_ns), 0);
        CHECK_INT(c.n_nodes, 0);
    }
    tree_free(t);
    call_free(&c);
    n_ev = 0;
}

static char released[4][4096];
static size_t n_released;

static void out(void *arg, mct_call *c, int warmup, const mct_err *dropped)
{
    mct_buf b = {0};

    (void)arg;
    (void)warmup;
    CHECK(c != NULL);
    if (c == NULL) {
        fprintf(stderr, "dropped: %s\n", dropped->msg);
        return;
    }
    CHECK_INT(call_json_line(&b, &tab, c), 0);
    if (n_released < 4 && b.len < sizeof released[0]) {
        memcpy(released[n_released], b.data, b.len);
        released[n_released++][b.len] = '\0';
    }
    buf_free(&b);
}

/* The entry call: W hands off task 1 (its site returns); the root hands
 * off task 3, whose site throws (rejected), task 4 (never comes) and task 5
 * (run inline). Task 1 hands off task 2 from W. */
static void entry_events(int with_missing)
{
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_ENTER, W, 10);
    ev(PROBE_HANDOFF | 1u << 4, RUN, 20);
    ev(PROBE_HANDED, -1, 21);
    ev(PROBE_EXIT, W, 30);
    if (with_missing) {
        ev(PROBE_ENTER, W, 35);
        ev(PROBE_HANDOFF | 3u << 4, RUN, 40);
        ev(PROBE_FAIL, W, 45);
        ev(PROBE_HANDOFF | 4u << 4, RUN, 50);
        ev(PROBE_HANDED, -1, 51);
    }
    ev(PROBE_HANDOFF | 5u << 4, RUN, 60);
    ev(PROBE_INLINE | 5u << 4, -1, 61);
    ev(PROBE_HANDED, -1, 62);
    ev(PROBE_ROOT_EXIT, ROOT, 100);
}

static void task1_events(void)
{
    ev(PROBE_ROOT_ENTER, RUN, 150);
    ev(PROBE_TASK | 1u << 4, -1, 151);
    ev(PROBE_ENTER, W, 160);
    ev(PROBE_HANDOFF | 2u << 4, RUN, 170);
    ev(PROBE_HANDED, -1, 171);
    ev(PROBE_EXIT, W, 180);
    ev(PROBE_ROOT_EXIT, RUN, 200);
}

static void task2_events(void)
{
    ev(PROBE_ROOT_ENTER, RUN, 300);
    ev(PROBE_TASK | 2u << 4, -1, 301);
    ev(PROBE_ENTER, W, 310);
    ev(PROBE_EXIT, W, 320);
    ev(PROBE_ROOT_EXIT, RUN, 330);
}

/* Futures (async_futures) as the test keeps them: a reference is itself,
 * done is fut_done's, drops counted. */
static int fut_done, fut_open, drops;

static void *f_keep(void *ref)
{
    return ref;
}

static void f_drop(void *kept)
{
    (void)kept;
    drops++;
}

static int f_done(void *kept)
{
    return kept == &fut_done;
}

static const async_futures futs = {.keep = f_keep, .drop = f_drop, .done = f_done};

/* The entry call hands off task 6, whose future is done, and task 7,
 * whose future is not: once the wait is over the call is held one pass
 * more, then task 6 is cancelled and task 7 pending (with_run: task 6's
 * run comes in that pass, and is put there instead); the futures are
 * dropped with the call. */
static void cancelled_case(int with_run)
{
    async *a = async_new(1000, &futs);

    n_released = 0;
    drops = 0;
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_HANDOFF | 6u << 4, RUN, 10);
    ev(PROBE_HANDED, -1, 11);
    ev(PROBE_FUTURE, -1, (uint64_t)(uintptr_t)&fut_done);
    ev(PROBE_HANDOFF | 7u << 4, RUN, 20);
    ev(PROBE_HANDED, -1, 21);
    ev(PROBE_FUTURE, -1, (uint64_t)(uintptr_t)&fut_open);
    ev(PROBE_ROOT_EXIT, ROOT, 100);
    take(a, "main", 0);
    CHECK_INT(async_release(a, &tab, &cal, 500, 0, out, NULL), 0);
    CHECK_INT(async_release(a, &tab, &cal, 1000, 0, out, NULL), 0);
    if (with_run) {
        ev(PROBE_ROOT_ENTER, RUN, 150);
        ev(PROBE_TASK | 6u << 4, -1, 151);
        ev(PROBE_ROOT_EXIT, RUN, 200);
        take(a, "pool-1", 1000);
    }
    CHECK_INT(async_release(a, &tab, &cal, 1001, 0, out, NULL), 1);
    CHECK_INT(n_released, 1);
    if (with_run)
        CHECK(strstr(released[0], "\"async\":true,\"handoff_ns\":10,\"queued_ns\":140,\"thread\":\"pool-1\"") != NULL);
    else
        CHECK(strstr(released[0], "\"async\":true,\"cancelled\":true,\"handoff_ns\":10,\"children\":[]}") != NULL);
    CHECK(strstr(released[0], "\"async\":true,\"pending\":true,\"handoff_ns\":20,\"children\":[]}") != NULL);
    CHECK_INT(drops, 2);
    async_free(a);
}

static void test_cancelled(void)
{
    cancelled_case(0);
    cancelled_case(1);
}

/* The tasks' runs first (the nested one before its parent's), then the
 * entry call: released at once, all there. */
static void test_complete(void)
{
    async *a = async_new(1000000, NULL);

    n_released = 0;
    task2_events();
    take(a, "pool-2", 1);
    task1_events();
    take(a, "pool-1", 2);
    entry_events(0);
    take(a, "main", 3);
    CHECK_INT(async_held(a), 1);
    CHECK_INT(async_release(a, &tab, &cal, 4, 0, out, NULL), 1);
    CHECK_INT(n_released, 1);
    CHECK(strstr(released[0], "\"method\":\"w\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":20,\"self_ns\":20,"
                              "\"min_ns\":20,\"max_ns\":20,\"throws\":0,\"children\":[{\"class\":\"java.lang.Runnable\","
                              "\"method\":\"run\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":50,\"self_ns\":30,"
                              "\"min_ns\":50,\"max_ns\":50,\"throws\":0,\"async\":true,\"handoff_ns\":20,\"queued_ns\":130,"
                              "\"thread\":\"pool-1\"") != NULL);
    CHECK(strstr(released[0], "\"async\":true,\"handoff_ns\":170,\"queued_ns\":130,\"thread\":\"pool-2\"") != NULL);
    /* The root's self time is its own: total less its synchronous child. */
    CHECK(strstr(released[0], "\"root\":{\"class\":\"com.shop.Cart\",\"method\":\"total\",\"desc\":\"()J\","
                              "\"calls\":1,\"total_ns\":100,\"self_ns\":80,") != NULL);
    CHECK(strstr(released[0], "pending") == NULL);
    CHECK_INT(async_held(a), 0);
    async_free(a);
}

/* The entry call first; task 4 never comes: held until the wait is over,
 * then released with it pending and task 3 rejected; a run that comes
 * after is kept for a while, then dropped. */
static void test_wait(void)
{
    async *a = async_new(1000, &futs);

    n_released = 0;
    entry_events(1);
    take(a, "main", 0);
    task1_events();
    take(a, "pool-1", 10);
    CHECK_INT(async_release(a, &tab, &cal, 20, 0, out, NULL), 0);
    task2_events();
    take(a, "pool-2", 30);
    CHECK_INT(async_release(a, &tab, &cal, 40, 0, out, NULL), 0);
    CHECK_INT(async_release(a, &tab, &cal, 1000, 0, out, NULL), 1);
    CHECK_INT(n_released, 1);
    CHECK(strstr(released[0], "\"async\":true,\"rejected\":true,\"handoff_ns\":40,\"children\":[]}") != NULL);
    CHECK(strstr(released[0], "\"async\":true,\"pending\":true,\"handoff_ns\":50,\"children\":[]}") != NULL);
    CHECK(strstr(released[0], "\"thread\":\"pool-2\"") != NULL);
    /* the two calls of W merge, one threw: rejected under it, after task
     * 1's run; pending under the root, nothing for task 5 */
    CHECK(strstr(released[0], "\"method\":\"w\",\"desc\":\"()V\",\"calls\":2,") != NULL);
    CHECK(strstr(released[0], "\"rejected\":true,\"handoff_ns\":40,\"children\":[]}]},{\"class\":\"java.lang.Runnable\","
                              "\"method\":\"run\",\"desc\":\"()V\",\"calls\":0,\"total_ns\":0,\"self_ns\":0,"
                              "\"min_ns\":0,\"max_ns\":0,\"throws\":0,\"async\":true,\"pending\":true,"
                              "\"handoff_ns\":50,\"children\":[]}]}") != NULL);
    /* Forced: an entry call released however incomplete. */
    entry_events(1);
    take(a, "main", 2000);
    CHECK_INT(async_release(a, &tab, &cal, 2001, 1, out, NULL), 1);
    CHECK_INT(n_released, 2);
    CHECK(strstr(released[1], "\"async\":true,\"pending\":true") != NULL);
    async_free(a);
}

/* A stream's function (PROBE_HANDOFF_MANY), applied four times on two
 * workers: the runs on one thread come together as one node (counts added,
 * children matched by method, one only in the later run appended), one node
 * per thread under the node that built the stream, truncated where a run
 * was the thread's last traced one; the entry call waits one drain pass
 * (async_release) for runs, no more; a stream hand-off with no run on another thread gives no
 * node (nothing pending), and one whose terminal operation threw is no
 * refusal. */
static void test_stream(void)
{
    static const char *const threads[] = {"fj-1", "fj-2", "fj-1"};
    async *a = async_new(1000000, NULL);

    n_released = 0;
    for (uint64_t i = 0; i < 3; i++) {
        uint64_t t = 200 + 100 * i;

        ev(PROBE_ROOT_ENTER, RUN, t);
        ev(PROBE_TASK | 7u << 4, -1, t + 1);
        ev(PROBE_ENTER, W, t + 10);
        ev(PROBE_EXIT, W, t + 20);
        if (i == 2) {
            ev(PROBE_ENTER, X, t + 30);
            ev(PROBE_EXIT, X, t + 35);
        }
        ev(PROBE_ROOT_EXIT, RUN, t + 50);
        take(a, threads[i], 1 + i);
    }
    CHECK_INT(async_held(a), 0);
    ev(PROBE_ROOT_ENTER, ROOT, 0);
    ev(PROBE_HANDOFF | 7u << 4, RUN | PROBE_HANDOFF_MANY, 10);
    ev(PROBE_HANDED, -1, 11);
    ev(PROBE_ENTER, W, 20);
    ev(PROBE_HANDOFF | 8u << 4, RUN | PROBE_HANDOFF_MANY, 25);
    ev(PROBE_FAIL, W, 30);
    ev(PROBE_ROOT_EXIT, ROOT, 1000);
    take(a, "main", 10);
    /* Held for the runs the next drain pass may still bring: one on fj-2. */
    CHECK_INT(async_release(a, &tab, &cal, 11, 0, out, NULL), 0);
    ev(PROBE_ROOT_ENTER, RUN, 500);
    ev(PROBE_TASK | 7u << 4, PROBE_STREAM_CUT, 501);
    ev(PROBE_ENTER, W, 510);
    ev(PROBE_EXIT, W, 520);
    ev(PROBE_ROOT_EXIT, RUN, 550);
    take(a, "fj-2", 12);
    CHECK_INT(async_release(a, &tab, &cal, 13, 0, out, NULL), 1);
    CHECK_INT(n_released, 1);
    CHECK(strstr(released[0], "\"method\":\"w\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":10,\"self_ns\":10,"
                              "\"min_ns\":10,\"max_ns\":10,\"throws\":1,\"children\":[]},"
                              "{\"class\":\"java.lang.Runnable\",\"method\":\"run\",\"desc\":\"()V\",\"calls\":2,"
                              "\"total_ns\":100,\"self_ns\":75,\"min_ns\":50,\"max_ns\":50,\"throws\":0,"
                              "\"async\":true,\"handoff_ns\":10,\"queued_ns\":190,\"thread\":\"fj-1\",\"children\":[{\"class\":"
                              "\"com.shop.Cart\",\"method\":\"w\",\"desc\":\"()V\",\"calls\":2,\"total_ns\":20,") !=
          NULL);
    CHECK(strstr(released[0], "\"method\":\"x\",\"desc\":\"()V\",\"calls\":1,\"total_ns\":5,") != NULL);
    /* fj-2's last run was its last traced one (PROBE_STREAM_CUT): truncated */
    CHECK(strstr(released[0], "\"calls\":2,\"total_ns\":100,\"self_ns\":80,\"min_ns\":50,\"max_ns\":50,"
                              "\"throws\":0,\"truncated\":true,\"async\":true,\"handoff_ns\":10,\"queued_ns\":290,"
                              "\"thread\":\"fj-2\"") != NULL);
    CHECK(strstr(released[0], "\"truncated\":true,\"async\":true,\"handoff_ns\":10,\"queued_ns\":190") == NULL);
    CHECK(strstr(released[0], "pending") == NULL);
    CHECK(strstr(released[0], "rejected") == NULL);
    CHECK_INT(async_held(a), 0);
    async_free(a);
}

int main(void)
{
    mct_err err;

    ROOT = mt_add("com/shop/Cart", "total", "()J", 1, 1, &err);
    W = mt_add("com/shop/Cart", "w", "()V", 1, 0, &err);
    X = mt_add("com/shop/Cart", "x", "()V", 1, 0, &err);
    RUN = mt_add("java/lang/Runnable", "run", "()V", 1, 0, &err);
    test_complete();
    test_wait();
    test_cancelled();
    test_stream();
    call_tab_free(&tab);
    return check_status();
}
