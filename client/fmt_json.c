/* fmt_json.c — the default format: each call as one compact JSON object per
 * line (SPEC §3), exactly as the agent rendered it. */
#include "output.h"

static int json_call(out *o, const json_t *call)
{
    if (json_dumpf(call, o->f, JSON_COMPACT) < 0 || fputc('\n', o->f) == EOF)
        return -1;
    return 0;
}

const struct out_format fmt_json = {
    .call = json_call,
};
