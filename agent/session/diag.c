/* diag.c — see diag.h. */
#include "diag.h"

#include <inttypes.h>
#include <string.h>

#include "clock.h"
#include "instrument.h"
#include "match.h"
#include "probe.h"
#include "probe_install.h"
#include "vm.h"

static match_re *re;
static int active, reported;

static int wanted(const char *name, void *arg)
{
    return strncmp(name, "mcalltree/", 10) != 0 && match_class(re, name) == 1;
}

int diag_start(JNIEnv *jni, const char *regex, mct_err *err)
{
    if (active)
        return 0;
    re = match_compile(regex, err);
    if (re == NULL)
        return -1;
    clock_init(strcmp(vm_options()->clock, "monotonic") == 0);
    if (probe_install(jni, vm_jvmti(), 1, err) < 0 || inst_init(jni, err) < 0)
        return -1;
    inst_set_rewrite_all(wanted, NULL);
    active = 1;
    vm_log("diagnostic mode: every method of the classes matching %s gets counting probes as it loads",
           regex);
    return 0;
}

int diag_active(void)
{
    return active;
}

void diag_report(void)
{
    uint64_t classes, methods, skipped, bad, enters, exits, fails;

    if (!active || reported)
        return;
    reported = 1;
    inst_diag_counts(&classes, &methods, &skipped, &bad);
    probe_counts(&enters, &exits, &fails);
    vm_log("rewrite-all: classes=%" PRIu64 " methods=%" PRIu64 " skipped=%" PRIu64 " failed_classes=%" PRIu64
           " enters=%" PRIu64 " exits=%" PRIu64 " fails=%" PRIu64,
           classes, methods, skipped, bad, enters, exits, fails);
}
