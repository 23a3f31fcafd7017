/* mctbench.c — libmctbench.so, the natives of tests/java/bench/mctbench/
 * Native.java: what a probe of mcalltree costs at least, measured from
 * JIT-compiled code in the same JVM as the workload. Each native is shaped
 * like a probe (static, an int argument, no result, JNIEnv and jclass
 * untouched): empty() is the JNI call alone; tsc() and mono() add the clock
 * read the agent makes (rdtsc on an invariant TSC, else CLOCK_MONOTONIC)
 * and a store of it, as the probe stores its event; tcpu() the thread's
 * CPU clock, which the probes add with --cpu. */
#include <jni.h>
#include <stdint.h>
#include <time.h>

/* Where the clock reads go, so that the compiler keeps them. */
static volatile uint64_t last;

JNIEXPORT void JNICALL Java_mctbench_Native_empty(JNIEnv *env, jclass cls, jint id);
JNIEXPORT void JNICALL Java_mctbench_Native_tsc(JNIEnv *env, jclass cls, jint id);
JNIEXPORT void JNICALL Java_mctbench_Native_mono(JNIEnv *env, jclass cls, jint id);
JNIEXPORT void JNICALL Java_mctbench_Native_tcpu(JNIEnv *env, jclass cls, jint id);

JNIEXPORT void JNICALL Java_mctbench_Native_empty(JNIEnv *env, jclass cls, jint id)
{
    (void)env;
    (void)cls;
    (void)id;
}

JNIEXPORT void JNICALL Java_mctbench_Native_tsc(JNIEnv *env, jclass cls, jint id)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;

    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    last = (uint64_t)hi << 32 | lo;
#else
    Java_mctbench_Native_mono(env, cls, id);
#endif
    (void)env;
    (void)cls;
    (void)id;
}

JNIEXPORT void JNICALL Java_mctbench_Native_mono(JNIEnv *env, jclass cls, jint id)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    last = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    (void)env;
    (void)cls;
    (void)id;
}

JNIEXPORT void JNICALL Java_mctbench_Native_tcpu(JNIEnv *env, jclass cls, jint id)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    last = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    (void)env;
    (void)cls;
    (void)id;
}
