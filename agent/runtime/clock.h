/* clock.h — the probes' time source: the invariant TSC where the CPU has one
 * (read with rdtsc, ~10 ns), else CLOCK_MONOTONIC (~25 ns through the vDSO).
 * Probes store raw ticks; the worker converts them with a calibration against
 * CLOCK_MONOTONIC that sharpens as time passes (no calibration delay at
 * attach). */
#ifndef MCT_CLOCK_H
#define MCT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Non-zero when ticks are TSC cycles; read on every probe. */
extern int clock_tsc __attribute__((visibility("hidden")));

/* Chooses the source (the TSC only when invariant and not refused with
 * force_monotonic) and anchors the calibration. Idempotent; not thread-safe. */
void clock_init(int force_monotonic);

/* Switches the ticks to CLOCK_MONOTONIC for good (the probes' Java writer
 * reads it): only before any tick was recorded that is still to be read
 * (the JVM's first traced call). */
void clock_use_monotonic(void);

static inline uint64_t clock_monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The current time in ticks: what the probes record. */
static inline uint64_t clock_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    if (clock_tsc) {
        uint32_t lo, hi;

        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
        return (uint64_t)hi << 32 | lo;
    }
#endif
    return clock_monotonic_ns();
}

/* A calibration: ns = (ticks - tick0) * ns_per_tick + mono0. Taken by value
 * so that one tree is converted with one factor. */
typedef struct clock_cal {
    uint64_t tick0;
    double ns_per_tick;
    int64_t wall0;     /* CLOCK_REALTIME ns at tick0 */
} clock_cal;

/* The current calibration; refreshes it (at most every 100 ms) and, right
 * after clock_init, waits until 5 ms have passed for a usable first factor.
 * Called by the worker, never by probes. */
clock_cal clock_calibration(void);

/* Duration in ns of a tick interval. */
static inline uint64_t clock_ns(const clock_cal *c, uint64_t ticks)
{
    return (uint64_t)((double)ticks * c->ns_per_tick + 0.5);
}

/* Wall-clock time (ns since the epoch) of a tick stamp. */
static inline int64_t clock_wall_ns(const clock_cal *c, uint64_t ticks)
{
    return c->wall0 + (int64_t)(((double)ticks - (double)c->tick0) * c->ns_per_tick);
}

/* "tsc" or "monotonic". */
const char *clock_source(void);

#endif
