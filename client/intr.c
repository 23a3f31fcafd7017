/* intr.c — see intr.h. */
#include "intr.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "mtime.h"

/* The longest a wait goes without looking at the count. */
#define SLICE_MS 100

static volatile sig_atomic_t signals;
static volatile sig_atomic_t alarmed;

static void on_signal(int sig)
{
    (void)sig;
    signals++;
}

int intr_catch(mct_err *e)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
        return mct_err_set(e, MCT_E_IO, "sigaction: %s", strerror(errno));
    sa.sa_handler = SIG_IGN;
    if (sigaction(SIGPIPE, &sa, NULL) < 0)
        return mct_err_set(e, MCT_E_IO, "sigaction: %s", strerror(errno));
    return 0;
}

static void on_alarm(int sig)
{
    (void)sig;
    alarmed = 1;
}

int intr_stop_due_at(double at_ms, mct_err *e)
{
    struct sigaction sa;
    struct itimerval it = { .it_interval = { .tv_sec = 0, .tv_usec = SLICE_MS * 1000 } };
    double wait_ms = at_ms - mct_now_ms();

    /* No SA_RESTART: a blocked write must return. */
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_alarm;
    if (sigaction(SIGALRM, &sa, NULL) < 0)
        return mct_err_set(e, MCT_E_IO, "sigaction: %s", strerror(errno));
    /* A zero it_value disarms: the first alarm is at least 1 ms away. */
    if (wait_ms < 1)
        wait_ms = 1;
    it.it_value.tv_sec = (time_t)(wait_ms / 1000);
    it.it_value.tv_usec = (suseconds_t)((wait_ms - (double)it.it_value.tv_sec * 1000) * 1000);
    if (setitimer(ITIMER_REAL, &it, NULL) < 0)
        return mct_err_set(e, MCT_E_IO, "setitimer: %s", strerror(errno));
    return 0;
}

int intr_stop_due(void)
{
    return signals > 0 || alarmed;
}

void intr_stop_due_clear(void)
{
    struct itimerval off = { 0 };

    setitimer(ITIMER_REAL, &off, NULL);
    alarmed = 0;
}

int intr_count(void)
{
    return signals;
}

int intr_wait_readable(int fd, int timeout_ms, mct_err *e)
{
    long long deadline = timeout_ms < 0 ? -1 : mct_now_ms() + timeout_ms;

    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        long long left = deadline < 0 ? SLICE_MS : deadline - mct_now_ms();
        int rc;

        if (signals > 0)
            return mct_err_set(e, MCT_E_INTR, "interrupted");
        /* In slices: a signal just before poll would not interrupt it. */
        rc = poll(&pfd, 1, left < 0 ? 0 : left > SLICE_MS ? SLICE_MS : (int)left);
        if (rc > 0)
            return 1;
        if (rc == 0 && left <= SLICE_MS && deadline >= 0)
            return 0;
        if (rc < 0 && errno != EINTR)
            return mct_err_set(e, MCT_E_IO, "poll: %s", strerror(errno));
    }
}

int intr_sleep_ms(int ms, mct_err *e)
{
    long long deadline = mct_now_ms() + ms;
    long long left;

    while ((left = deadline - mct_now_ms()) > 0) {
        struct timespec ts = { .tv_sec = 0, .tv_nsec = (left > SLICE_MS ? SLICE_MS : left) * 1000000 };

        if (signals > 0)
            return mct_err_set(e, MCT_E_INTR, "interrupted");
        nanosleep(&ts, NULL);
    }
    return signals > 0 ? mct_err_set(e, MCT_E_INTR, "interrupted") : 0;
}
