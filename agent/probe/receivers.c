/* receivers.c — the receivers of an inherited entry method's traced calls
 * (see probe.h, probe_receivers_begin): the copies of the session's named
 * class, kept weakly here and handed to the probe class as an array of
 * WeakReference that its Java side reads. Runs on the session thread and
 * on ClassPrepare, never under a probe: it locks and allocates. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

/* The session's named class: its signature and the copies of it whose
 * instances are receivers, weakly (the agent's own side), each with the
 * WeakReference the probe class holds it by. Any thread adds (ClassPrepare). */
static pthread_mutex_t receivers_lock = PTHREAD_MUTEX_INITIALIZER;
static char *receiver_name;
static jweak receiver_copy[PROBE_MAX_RECEIVERS];
static jobject receiver_ref[PROBE_MAX_RECEIVERS];
static size_t n_receivers;

/* Hands the probe class the copies held now, as a new array (its readers
 * never see one change); receivers_lock held. 0, or -1 when out of memory
 * (the probe class keeps the array it had). */
static int publish_receivers(JNIEnv *jni)
{
    jobjectArray a = NULL;
    size_t i;

    if (probe_class() == NULL || probe_bound()->receivers_field == NULL)
        return 0;
    if (n_receivers > 0) {
        a = (*jni)->NewObjectArray(jni, (jsize)n_receivers, probe_bound()->weak_ref_class, NULL);
        if (a == NULL) {
            (*jni)->ExceptionClear(jni);
            return -1;
        }
        for (i = 0; i < n_receivers; i++)
            (*jni)->SetObjectArrayElement(jni, a, (jsize)i, receiver_ref[i]);
    }
    (*jni)->SetStaticObjectField(jni, probe_class(), probe_bound()->receivers_field, a);
    if (a != NULL)
        (*jni)->DeleteLocalRef(jni, a);
    return 0;
}

/* Forgets copy i; receivers_lock held. */
static void drop_receiver(JNIEnv *jni, size_t i)
{
    (*jni)->DeleteWeakGlobalRef(jni, receiver_copy[i]);
    (*jni)->DeleteGlobalRef(jni, receiver_ref[i]);
    n_receivers--;
    receiver_copy[i] = receiver_copy[n_receivers];
    receiver_ref[i] = receiver_ref[n_receivers];
}

int probe_receivers_begin(JNIEnv *jni, const char *name)
{
    int rc = 0;

    pthread_mutex_lock(&receivers_lock);
    while (n_receivers > 0)
        drop_receiver(jni, n_receivers - 1);
    free(receiver_name);
    receiver_name = NULL;
    if (name != NULL && (receiver_name = strdup(name)) == NULL)
        rc = -1;
    publish_receivers(jni);
    pthread_mutex_unlock(&receivers_lock);
    return rc;
}

/* Whether name is the session's named class now. */
static int is_named(const char *name)
{
    int yes;

    pthread_mutex_lock(&receivers_lock);
    yes = receiver_name != NULL && strcmp(receiver_name, name) == 0 && probe_bound()->weak_ref_class != NULL;
    pthread_mutex_unlock(&receivers_lock);
    return yes;
}

int probe_receiver_add(JNIEnv *jni, jclass cls, const char *name)
{
    jobject local, ref = NULL;
    jweak copy = NULL;
    size_t i, before;
    int rc = 1;

    if (!is_named(name))
        return 0;
    /* Made before taking the lock: the constructor is Java code, which
     * might load a class and come back here. */
    local = (*jni)->NewObject(jni, probe_bound()->weak_ref_class, probe_bound()->weak_ref_init, cls);
    if (local != NULL) {
        ref = (*jni)->NewGlobalRef(jni, local);
        (*jni)->DeleteLocalRef(jni, local);
    }
    (*jni)->ExceptionClear(jni);
    if (ref != NULL)
        copy = (*jni)->NewWeakGlobalRef(jni, cls);
    if (copy == NULL) {
        if (ref != NULL)
            (*jni)->DeleteGlobalRef(jni, ref);
        return -1;
    }
    pthread_mutex_lock(&receivers_lock);
    before = n_receivers;
    if (receiver_name == NULL || strcmp(receiver_name, name) != 0)
        rc = 0; /* the session ended meanwhile */
    for (i = 0; i < n_receivers; i++) {
        if ((*jni)->IsSameObject(jni, receiver_copy[i], NULL))
            drop_receiver(jni, i--); /* its class was unloaded */
        else if ((*jni)->IsSameObject(jni, receiver_copy[i], cls))
            rc = 0;
    }
    if (rc == 1 && n_receivers == PROBE_MAX_RECEIVERS)
        rc = -1;
    if (rc == 1) {
        receiver_copy[n_receivers] = copy;
        receiver_ref[n_receivers++] = ref;
    }
    if ((rc == 1 || n_receivers != before) && publish_receivers(jni) < 0 && rc == 1) {
        drop_receiver(jni, n_receivers - 1);
        rc = -1;
        copy = NULL; /* dropped with it */
    }
    pthread_mutex_unlock(&receivers_lock);
    if (rc != 1 && copy != NULL) {
        (*jni)->DeleteWeakGlobalRef(jni, copy);
        (*jni)->DeleteGlobalRef(jni, ref);
    }
    return rc;
}
