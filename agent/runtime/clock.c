/* clock.c — see clock.h. */
#include "clock.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int clock_tsc;

static pthread_mutex_t cal_lock = PTHREAD_MUTEX_INITIALIZER;
static int inited;
static uint64_t anchor_tick, anchor_mono;
static int64_t anchor_wall;
static uint64_t last_mono;       /* when cal was last refreshed */
static clock_cal cal;

/* The CPU promises a TSC at a constant rate that keeps counting in deep
 * sleep (CPUID 0x80000007 EDX bit 8); in a VM the kernel's own choice of
 * the TSC as its clocksource says the same. */
static int tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    char src[32] = "";
    FILE *f;

    if (__get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8)))
        return 1;
    f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == NULL)
        return 0;
    if (fgets(src, sizeof src, f) == NULL)
        src[0] = '\0';
    fclose(f);
    return strncmp(src, "tsc", 3) == 0 && (src[3] == '\n' || src[3] == '\0');
#else
    return 0;
#endif
}

/* Reads ticks and CLOCK_MONOTONIC as close together as a few tries allow. */
static void sample(uint64_t *tick, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    int i;

    for (i = 0; i < 5; i++) {
        uint64_t t0 = clock_ticks();
        uint64_t m = clock_monotonic_ns();
        uint64_t t1 = clock_ticks();

        if (t1 - t0 < best) {
            best = t1 - t0;
            *tick = t0 + (t1 - t0) / 2;
            *mono = m;
        }
    }
}

void clock_init(int force_monotonic)
{
    struct timespec rt;

    if (inited)
        return;
    clock_tsc = !force_monotonic && tsc_invariant();
    sample(&anchor_tick, &anchor_mono);
    clock_gettime(CLOCK_REALTIME, &rt);
    anchor_wall = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec -
                  (int64_t)(clock_monotonic_ns() - anchor_mono);
    cal.tick0 = anchor_tick;
    cal.ns_per_tick = 1.0;
    cal.wall0 = anchor_wall;
    inited = 1;
}

void clock_use_monotonic(void)
{
    pthread_mutex_lock(&cal_lock);
    if (clock_tsc) {
        uint64_t now = clock_monotonic_ns();

        clock_tsc = 0;
        anchor_wall += (int64_t)(now - anchor_mono);
        anchor_mono = anchor_tick = now;
        cal.tick0 = anchor_tick;
        cal.wall0 = anchor_wall;
        cal.ns_per_tick = 1.0;
        last_mono = 0;
    }
    pthread_mutex_unlock(&cal_lock);
}

clock_cal clock_calibration(void)
{
    clock_cal c;
    uint64_t tick, mono;

    pthread_mutex_lock(&cal_lock);
    if (clock_tsc) {
        sample(&tick, &mono);
        while (mono - anchor_mono < 5000000) {
            usleep((useconds_t)((5000000 - (mono - anchor_mono)) / 1000 + 1));
            sample(&tick, &mono);
        }
        if (last_mono == 0 || mono - last_mono >= 100000000) {
            cal.ns_per_tick = (double)(mono - anchor_mono) / (double)(tick - anchor_tick);
            last_mono = mono;
        }
    }
    c = cal;
    pthread_mutex_unlock(&cal_lock);
    return c;
}

const char *clock_source(void)
{
    return clock_tsc ? "tsc" : "monotonic";
}
