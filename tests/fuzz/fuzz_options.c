/* fuzz_options.c — the agent's options string (opts_parse) on arbitrary
 * bytes: what follows '=' in -agentpath, or the attach `load` command's
 * argument, which any user allowed to attach chooses. Nothing may crash or
 * read out of bounds; a failure has a message; a parsed trace has its
 * strings within their bounds, its depth in range, and a copy of it points
 * into the copy's text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct agent_opts o;
    char *text = malloc(size + 1);
    mct_err e;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    mct_err_clear(&e);
    if (opts_parse(text, &o, &e) < 0) {
        if (e.code == MCT_OK || e.msg[0] == '\0')
            abort();
    } else if (o.trace.req.cls != NULL &&
               (o.trace.req.regex == NULL || o.trace.req.out == NULL ||
                strlen(o.trace.req.regex) > REQ_TEXT_MAX || strlen(o.trace.req.out) > REQ_TEXT_MAX ||
                o.trace.req.depth < 1 || o.trace.req.depth > PROTO_MAX_DEPTH)) {
        abort();
    } else if (o.trace.req.cls != NULL) {
        /* A copy's strings are its own. */
        static struct agent_opts copy;

        opts_trace_copy(&copy.trace, &o.trace);
        if (strcmp(copy.trace.req.cls, o.trace.req.cls) != 0 ||
            copy.trace.req.cls < copy.trace.text || copy.trace.req.cls >= copy.trace.text + sizeof copy.trace.text)
            abort();
    }
    (void)opts_has_trace(text);
    free(text);
    return 0;
}
