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
 * is not trusted. The caller is an agent thread that never traces. Returns
 * 0, or -1 (*out zeroed) when it cannot measure. */
int probe_calibrate(JNIEnv *jni, probe_cost *out);

/* How a traced call's ordinary probes record (probe.h probe_use_writer):
 * the Java writer or the natives, and what each cost when both were
 * measured. */
typedef struct probe_choice {
    int chosen;          /* the writer is on */
    int measured;        /* mode "auto" measured both: */
    double native_ns;    /* a probe call through the natives */
    double writer_ns;    /* and with the writer */
    probe_cost cost;     /* the way kept, what probe_calibrate would say
                            now (in the ticks of the clock from now on) */
} probe_choice;

/* Chooses how the probes record, once per JVM, before its first traced
 * call (later calls only zero *out): mode "native" keeps the natives;
 * "java" turns the writer on; "auto" (or "") measures both (each with its
 * own clock: the natives' may be the TSC, the writer's is System.nanoTime,
 * both timed in the agent's ticks) and turns the writer on when it costs
 * less, the natives kept when either cannot be measured. With the writer
 * on, the agent's clock is CLOCK_MONOTONIC from then on. Returns 0, or -1
 * when the JVM threw as the writer was turned on (the natives kept). */
int probe_choose(JNIEnv *jni, const char *mode, probe_choice *out);

/* Whether probe_choose has chosen. */
int probe_chosen(void);

#endif
