/* probe_cost.c — what one probe call costs, measured as a session starts
 * (see probe_cost.h): timed bursts of Probe.spin(), which calls the probes'
 * natives as instrumented code does, against the floor of recording an
 * event natively. */
#include "probe_cost.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "probe.h"

/* Calibration: probe calls are timed in short bursts, and the cheapest
 * burst gives the cost. Load, preemption and interrupts only ever add to a
 * burst, so the minimum of many short ones is what a probe costs when
 * nothing else interferes; the median shows how much they interfered. */
enum {
    CAL_BURST = 256,       /* probe calls per burst: ~5 us, rarely preempted */
    CAL_ROUND = 32,        /* bursts per round */
    CAL_WARM_BURSTS = 800, /* spin() runs at least this often before it counts:
                              past HotSpot's thresholds for compiling it with
                              C1 and then C2 */
    CAL_MEASURE = 4,       /* rounds measured once warm */
    CAL_SAMPLES = CAL_MEASURE * CAL_ROUND
};
#define CAL_GAIN 0.97
#define CAL_STABLE_NS 5000000u     /* warm: no round beat the best by CAL_GAIN for
                                      this long (a compilation takes a few ms) */
#define CAL_BUDGET_NS 300000000u   /* warm-up, measurement and retries */
#define CAL_RETRY_US 20000         /* pause before measuring again (the JIT catches up) */

/* Ticks of one call of spin(n) from here; UINT64_MAX when it threw. */
static uint64_t timed_spin(JNIEnv *jni, jmethodID spin, jint n)
{
    uint64_t t0 = clock_ticks(), t1;

    (*jni)->CallStaticVoidMethod(jni, probe_class(), spin, n);
    t1 = clock_ticks();
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return UINT64_MAX;
    }
    return t1 - t0;
}

/* The floor: what recording an event costs (clock read and stores), per
 * event, timed natively (the cheapest of many bursts). */
static double record_floor(void)
{
    static probe_ev ring[CAL_BURST];
    uint64_t best = UINT64_MAX;
    int b;

    for (b = 0; b < 64; b++) {
        uint64_t t = probe_record_ticks(ring, CAL_BURST, CAL_BURST);

        if (t < best)
            best = t;
    }
    return (double)best / CAL_BURST;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* One round of bursts: the cost per call of the cheapest (the fixed cost
 * of calling spin from C, `base`, taken off), each burst's into v when v is
 * not NULL. -1 when spin threw. */
static double round_min(JNIEnv *jni, jmethodID spin, uint64_t base, double *v)
{
    double best = -1;
    int b;

    for (b = 0; b < CAL_ROUND; b++) {
        uint64_t d = timed_spin(jni, spin, CAL_BURST);
        double per;

        if (d == UINT64_MAX)
            return -1;
        per = d > base ? (double)(d - base) / CAL_BURST : 0;
        if (v != NULL)
            v[b] = per;
        if (best < 0 || per < best)
            best = per;
    }
    return best;
}

/* The fixed cost of calling spin from here (the cheapest of a few calls
 * of spin(0), no more than *base so far); 0 when spin threw. */
static int spin_base(JNIEnv *jni, jmethodID spin, uint64_t *base)
{
    int k;

    for (k = 0; k < 16; k++) {
        uint64_t d = timed_spin(jni, spin, 0);

        if (d == UINT64_MAX)
            return 0;
        if (d < *base)
            *base = d;
    }
    return 1;
}

/* One measurement: runs spin until its cost stops falling (it is then
 * compiled), bounded by `until` (CLOCK_MONOTONIC ns), then times
 * CAL_SAMPLES bursts into v. *best gets the cheapest burst of all, per
 * call. Returns the bursts run, 0 when spin threw. */
static int measure(JNIEnv *jni, jmethodID spin, uint64_t until, double *v, double *best)
{
    uint64_t base = UINT64_MAX, now = clock_monotonic_ns(), gained = now;
    double warm = -1;
    int bursts = 0, k;

    if (!spin_base(jni, spin, &base))
        return 0;
    while (now < until && (bursts < CAL_WARM_BURSTS || now - gained < CAL_STABLE_NS)) {
        double r = round_min(jni, spin, base, NULL);

        if (r < 0)
            return 0;
        bursts += CAL_ROUND;
        now = clock_monotonic_ns();
        if (warm < 0 || r < warm * CAL_GAIN)
            gained = now;
        if (warm < 0 || r < warm)
            warm = r;
    }
    /* Compiled now, spin(0) may cost less than it did interpreted. */
    if (!spin_base(jni, spin, &base))
        return 0;
    for (k = 0; k < CAL_MEASURE; k++)
        if (round_min(jni, spin, base, v + k * CAL_ROUND) < 0)
            return 0;
    qsort(v, CAL_SAMPLES, sizeof v[0], cmp_double);
    *best = warm >= 0 && warm < v[0] ? warm : v[0];
    return bursts + CAL_SAMPLES;
}

/* probe_calibrate for either way of recording: writer, Probe.spinWriter
 * (each call records, into the scratch state: no floor to add), else
 * Probe.spin (the natives return at once: the floor is added). */
static int calibrate(JNIEnv *jni, int writer, probe_cost *out)
{
    double v[CAL_SAMPLES], best = -1;
    uint64_t until = clock_monotonic_ns() + CAL_BUDGET_NS;
    jmethodID spin;

    memset(out, 0, sizeof *out);
    if (probe_class() == NULL || (writer && probe_writer_scratch(jni) < 0))
        return -1;
    spin = (*jni)->GetStaticMethodID(jni, probe_class(), writer ? "spinWriter" : "spin", "(I)V");
    if (spin == NULL) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    /* Every burst counts, whichever attempt timed it: load and a spin()
     * not compiled yet only ever make a burst slower. */
    for (;;) {
        double b, floor = record_floor();
        int n = measure(jni, spin, until, v, &b);

        if (n == 0) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        if (best < 0 || b < best)
            best = b;
        if (out->bursts == 0 || floor < out->floor)
            out->floor = floor;
        out->bursts += n;
        out->measured = best + (writer ? 0 : out->floor);
        out->median = v[CAL_SAMPLES / 2] + (writer ? 0 : out->floor);
        out->trusted = out->measured <= PROBE_PLAUSIBLE * out->floor;
        if (out->trusted || clock_monotonic_ns() + CAL_RETRY_US * 1000u >= until)
            break;
        usleep(CAL_RETRY_US);
    }
    out->ticks = out->trusted ? out->measured : PROBE_PLAUSIBLE * out->floor;
    return 0;
}

int probe_calibrate(JNIEnv *jni, probe_cost *out)
{
    return calibrate(jni, probe_writer() && !probe_stamping(), out);
}
