/* cleanup.c — the ladder that ends a session, whatever point it reached:
 * the calls of a JVM exit taken, the entry class's threads let go, the
 * watches removed, the classes restored, the calls left discarded, the
 * `end` sent, then the connection closed and the rings given back. */
#include "cleanup.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "async.h"
#include "await.h"
#include "emit.h"
#include "instrument.h"
#include "msg.h"
#include "mutf8.h"
#include "probe.h"
#include "session.h"
#include "session_int.h"
#include "splan.h"
#include "tcsource.h"
#include "vm.h"
#include "warm.h"

void cleanup_restore(struct session *s, JNIEnv *jni, int instrumented)
{
    mct_err err;
    int restored = 0;
    struct msg_end end;

    /* Stopped as the JVM exits (a startup trace): the calls completed so
     * far are the trace's last ones, not discarded. */
    if (instrumented && s->end_reason != NULL && strcmp(s->end_detail, SESSION_STOP_JVM_EXIT) == 0) {
        __atomic_store_n(&s->closing, 0, __ATOMIC_RELEASE);
        drain(s, jni);
    }
    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
    await_release(1);
    splan_unwatch_loads();
    if (instrumented && vm_set_class_prepare(NULL, &err) < 0)
        vm_log("%s", err.msg);
    probe_session_end(jni);
    tcsource_end();
    if (instrumented) {
        size_t before;

        s->unloaded = inst_unloaded(jni);
        before = inst_rewritten_classes();

        if (inst_restore(jni, &err) < 0)
            vm_log("restoring classes: %s", err.msg);
        restored = (int)before;
        drain(s, jni); /* frees the exception refs of calls that ended meanwhile */
    }
    warm_end();
    /* The calls still waiting for their tasks go now, those missing pending. */
    if (instrumented)
        release_async(s, 1);
    /* One end per session: this one, or the VMDeath thread's (whichever
     * claims death_told first). */
    if (s->end_reason != NULL && atomic_exchange(&s->death_told, 1) == 0) {
        uint64_t busy = instrumented ? probe_dropped() - s->dropped_base : 0;
        /* The client's stop reason, maybe cut mid-character. */
        char *detail = s->end_detail[0] != '\0' ? mutf8_dup(s->end_detail) : NULL;
        char *warm_why;

        msg_end_init(&end, s->end_reason);
        end.calls = (long long)s->calls;
        end.printed = (long long)s->printed;
        end.filtered = (long long)s->filtered;
        if (instrumented)
            end.seen = (long long)(probe_seen() - s->seen_base);
        end.dropped = (long long)(busy + s->discarded);
        end.discarded = (long long)s->discarded;
        end.restored_classes = restored;
        end.instrumented_classes = (long long)inst_rewritten_classes();
        end.unloaded_classes = (long long)s->unloaded;
        end.detail = detail;
        end.warmup = instrumented && warm_unknown() == NULL ? (long long)s->warmup : -1;
        warm_why = instrumented && warm_unknown() != NULL ? mutf8_dup(warm_unknown()) : NULL;
        end.warmup_unknown = warm_why;
        end.not_recompiled = instrumented ? warm_stale() : -1;
        if (s->trace_context != NULL)
            end.trace_context_bad = (long long)s->trace_context_bad;
        if (s->sp.probe.bursts > 0) {
            end.has_probe = 1;
            end.probe = splan_probe(&s->sp);
            end.probe_ns = end.probe.ns;
        }
        send_last(s, msg_end_write(&end), instrumented);
        free(detail);
        free(warm_why);
    }
}

void cleanup_free(struct session *s, JNIEnv *jni, int instrumented)
{
    pthread_mutex_lock(&s->wlock);
    close(s->fd);
    s->fd = -1;
    pthread_mutex_unlock(&s->wlock);
    if (instrumented)
        probe_consumer_end(jni);
    pthread_mutex_destroy(&s->wlock);
    splan_free(&s->sp);
    sum_free(s->agg);
    sum_free(s->total);
    buf_free(&s->out);
    call_defs_free(&s->defs);
    call_tab_free(&s->tab);
    call_free(&s->call);
    tree_free(s->tree);
    async_free(s->async);
    json_decref(s->req);
    free(s);
}
