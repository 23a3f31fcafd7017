/* probe_cost.h — what one probe call costs inside a traced call, measured
 * once a session has planned, so that trees can take it off their times. */
#ifndef MCT_PROBE_COST_H
#define MCT_PROBE_COST_H

#include <jni.h>

/* What one probe call costs inside a traced call, in ticks: a probe called
 * from JIT-compiled code (spin(), which calls the enter native the way the
 * probes do, on an agent thread outside any traced call) plus recording an
 * event. */
typedef struct probe_cost {
    double ticks;      /* what to subtract per probe call: `measured` when
                          trusted, else the plausible bound */
    double measured;   /* the cheapest burst's cost per call */
    double median;     /* the median burst's: how much load interfered */
    double floor;      /* recording one event (clock read and stores), timed
                          natively: a probe call costs more, never less */
    int bursts;        /* bursts of probe calls timed */
    int trusted;       /* measured is at most PROBE_PLAUSIBLE times floor */
} probe_cost;

/* A probe call costing more than this many times the floor was measured
 * while something else ran (spin() not compiled yet, a busy JIT): it is
 * not believed. */
#define PROBE_PLAUSIBLE 4.0

/* Measures the probes' cost into *out: many short bursts of probe calls
 * once spin() is compiled (it runs until its cost stops falling), the
 * cheapest taken; measured again after a pause while implausible, for at
 * most 300 ms in all (about 10 ms on a quiet JVM), after which the figure
 * is not trusted. The probe calls are those of the way the session's
 * calls record: Probe.spin (the natives) or, with the Java writer on and
 * no stamps asked for, Probe.spinWriter. The caller is an agent thread
 * that never traces. Returns 0, or -1 (*out zeroed) when it cannot
 * measure. */
int probe_calibrate(JNIEnv *jni, probe_cost *out);

#endif
