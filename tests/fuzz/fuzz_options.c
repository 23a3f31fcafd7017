/* fuzz_options.c — the agent's options string (opts_parse) on arbitrary
 * bytes: what follows '=' in -agentpath, or the attach `load` command's
 * argument, which any user allowed to attach chooses. Nothing may crash or
 * read out of bounds; a failure has a message; a parsed trace's strings are
 * terminated and its depth in range. */
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
    } else if (o.trace.cls[0] != '\0' &&
               (memchr(o.trace.regex, '\0', sizeof o.trace.regex) == NULL ||
                memchr(o.trace.out, '\0', sizeof o.trace.out) == NULL || o.trace.depth < 1 ||
                o.trace.depth > 64)) {
        abort();
    }
    (void)opts_has_trace(text);
    free(text);
    return 0;
}
