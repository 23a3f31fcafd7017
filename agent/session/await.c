/* await.c — a session that waits for its entry class (--wait).
 *
 * It watches ClassPrepare for the class. The thread that prepares a copy of
 * the class is held there (it cannot run the class's code before it is
 * prepared) until the session has planned and instrumented it, at most
 * ENTRY_HOLD_MS, so that its very first calls are traced. The session thread
 * learns of the class through an eventfd. */
#include "await.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "msg.h"
#include "mutf8.h"
#include "session_int.h"
#include "vm.h"

/* How long a thread that prepares the entry class is held for the session. */
#define ENTRY_HOLD_MS 10000

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char *name;         /* the entry class's internal name; NULL: not waiting */
    int efd;            /* written once a copy was prepared; -1 when none */
    int held;           /* threads are held: the session has not released them */
    int installed;      /* our ClassPrepare callback is the JVM's */
} entry = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, -1, 0, 0 };

/* Set on the session thread: it runs Java of its own while it waits (the
 * probes' calibration, reading class bytes), and must never hold itself. */
static __thread int on_session_thread;

static void JNICALL on_entry_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass k)
{
    mct_err err;
    char *name = vm_class_name(k, &err);
    struct timespec until;

    (void)jvmti;
    (void)jni;
    (void)thread;
    if (name == NULL)
        return;
    pthread_mutex_lock(&entry.lock);
    if (entry.name != NULL && entry.held && strcmp(entry.name, name) == 0) {
        uint64_t one = 1;

        if (entry.efd >= 0 && write(entry.efd, &one, sizeof one) < 0)
            vm_debug("telling the session that its entry class loaded: %s", strerror(errno));
        /* The monotonic clock: a step of the wall clock must not stretch
         * the hold. */
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += ENTRY_HOLD_MS / 1000;
        while (entry.held && !on_session_thread) {
            if (pthread_cond_clockwait(&entry.cond, &entry.lock, CLOCK_MONOTONIC, &until) != 0) {
                vm_log("the session planning %s took over %d s: its calls run untraced until it is done",
                       mutf8_binary_name(name, strlen(name)), ENTRY_HOLD_MS / 1000);
                break;
            }
        }
    }
    pthread_mutex_unlock(&entry.lock);
    free(name);
}

/* Starts watching for the class cls (binary name with dots); 0, or -1 with
 * err set. The next await_release ends it. */
int await_watch(const char *cls, mct_err *err)
{
    int efd, watching;
    char *name;

    /* Already watched since the session was asked for (session_start_local). */
    pthread_mutex_lock(&entry.lock);
    watching = entry.name != NULL;
    pthread_mutex_unlock(&entry.lock);
    if (watching)
        return 0;
    efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    name = strdup(cls);
    if (efd < 0 || name == NULL) {
        if (efd >= 0)
            close(efd);
        free(name);
        return mct_err_set(err, MCT_E_IO, "cannot wait for class %s: %s", cls, strerror(errno));
    }
    for (char *p = name; *p != '\0'; p++)
        if (*p == '.')
            *p = '/';
    pthread_mutex_lock(&entry.lock);
    entry.name = name;
    entry.efd = efd;
    entry.held = 1;
    pthread_mutex_unlock(&entry.lock);
    if (vm_set_class_prepare(on_entry_prepare, err) < 0) {
        pthread_mutex_lock(&entry.lock);
        entry.name = NULL;
        entry.efd = -1;
        entry.held = 0;
        pthread_mutex_unlock(&entry.lock);
        close(efd);
        free(name);
        return -1;
    }
    entry.installed = 1;
    return 0;
}

/* Lets the held threads go and stops waiting; unhook: also remove our
 * ClassPrepare callback (else it is someone else's now, or gone). */
void await_release(int unhook)
{
    mct_err err;
    char *name;
    int efd;

    if (unhook && entry.installed && vm_set_class_prepare(NULL, &err) < 0)
        vm_log("%s", err.msg);
    entry.installed = 0;
    pthread_mutex_lock(&entry.lock);
    name = entry.name;
    efd = entry.efd;
    entry.name = NULL;
    entry.efd = -1;
    entry.held = 0;
    pthread_cond_broadcast(&entry.cond);
    pthread_mutex_unlock(&entry.lock);
    if (efd >= 0)
        close(efd);
    free(name);
}

/* Waits until a copy of the entry class is prepared (0), or the session
 * ends first: stop, the client gone, the JVM dying (-1). With verbose, says
 * what it waits for, every few seconds. */
int await_entry(struct session *s)
{
    uint64_t told = 0;
    char note[1200];

    snprintf(note, sizeof note, "waiting for class %s to load", s->cls);
    while (s->end_reason == NULL && !s->death_told) {
        struct pollfd pfd[2] = {{.fd = s->fd, .events = POLLIN}, {.fd = entry.efd, .events = POLLIN}};
        int r;

        if (s->verbose && now_ns() - told >= 5000000000u) {
            struct msg_status m = {.calls = -1, .printed = -1, .filtered = -1, .dropped = -1, .seen = -1,
                                   .instrumented = -1, .pending = -1, .late = -1, .instrumented_classes = -1,
                                   .unloaded_classes = -1, .note = note};

            told = now_ns();
            send_msg(s, msg_status_write(&m));
        }
        r = poll(pfd, 2, 1000);
        if (r < 0 && errno != EINTR) {
            end_session(s, "internal_error");
            break;
        }
        if (r > 0 && (pfd[1].revents & POLLIN))
            return 0;
        if (r > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            read_client(s);
    }
    return -1;
}

void await_session_thread(void)
{
    on_session_thread = 1;
}

void await_unhold(void)
{
    pthread_mutex_lock(&entry.lock);
    entry.held = 0;
    pthread_cond_broadcast(&entry.cond);
    pthread_mutex_unlock(&entry.lock);
}
