/* mtime.h — the monotonic clock, in milliseconds, that agent and client
 * measure their deadlines and waits with. */
#ifndef MCT_MTIME_H
#define MCT_MTIME_H

#include <time.h>

static inline long long mct_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
