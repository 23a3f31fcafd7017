/* fmt_json.c — the default format: each call as one compact JSON object per
 * line (SPEC §3), written by the call model's one JSON writer
 * (call_json_line), which escapes the control characters jansson leaves raw
 * as fu_json_dump does. A summary is written the same way, one object per
 * line. Tagged with a pid (out_set_pid), each gets a "pid" key after its
 * own, and "host" after it when the output names one (out_set_host). */
#include "output.h"

#include <errno.h>

#include "fmtutil.h"
#include "msg.h"

/* A call into o->text, which output.c writes after what f holds. */
static int json_call(out *o, const call_tab *t, const mct_call *c)
{
    if (call_json_line(&o->text, t, c) < 0) {
        errno = ENOMEM;
        return -1;
    }
    /* The wrap form: the JVM's pid last, in place of the line's "}\n". */
    if (o->pid > 0) {
        o->text.len -= 2;
        buf_printf(&o->text, ",\"pid\":%lld", o->pid);
        if (o->host != NULL) {
            buf_str(&o->text, ",\"host\":");
            call_json_str(&o->text, o->host);
        }
        buf_str(&o->text, "}\n");
    }
    return 0;
}

/* The summary's one writer (sum_write_json) into o->text, which output.c
 * writes after what f holds. */
static int json_summary(out *o, const sum *s, int final)
{
    mct_err e;

    size_t from = o->text.len;

    if (sum_write_json(s, final, &o->text, &e) < 0 || fu_json_escape(&o->text, from) < 0) {
        errno = ENOMEM;
        return -1;
    }
    /* The wrap form: the JVM's pid last, in place of the object's "}". */
    if (o->pid > 0) {
        o->text.len--;
        buf_printf(&o->text, ",\"pid\":%lld}", o->pid);
    }
    buf_ch(&o->text, '\n');
    return 0;
}

const struct out_format fmt_json = {
    .call = json_call,
    .summary = json_summary,
};
