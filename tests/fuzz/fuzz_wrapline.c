/* fuzz_wrapline.c — the lines of a JVM's trace file as the wrap form reads
 * them (untrusted): the bytes split at '\n' as the client splits them, each
 * line through wrapline_parse. Nothing may crash or leak, every refusal has
 * a message, and what is accepted is an object with a known "type" that is
 * accepted again once rendered and parsed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wrapline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_line(const char *line, size_t len)
{
    json_t *o, *back;
    char *text;
    mct_err e;

    o = wrapline_parse(line, len, &e);
    if (o == NULL) {
        if (e.code == MCT_OK || e.msg[0] == '\0')
            abort();
        return;
    }
    if (!json_is_string(json_object_get(o, "type")))
        abort();
    text = json_dumps(o, JSON_COMPACT);
    if (text == NULL)
        abort();
    back = wrapline_parse(text, strlen(text), &e);
    if (back == NULL || !json_equal(o, back))
        abort();
    json_decref(back);
    free(text);
    json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);

        one_line(p, len);
        p += len + (nl != NULL);
    }
    return 0;
}
