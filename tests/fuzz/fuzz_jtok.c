/* fuzz_jtok.c — the JSON lines tokenizer (protocol/jtok.h) against jansson,
 * line by line: a line the tokenizer accepts jansson parses, and a line
 * jansson parses within the line limit the tokenizer accepts; a line past
 * the limit is said to be; a line with a NUL byte is refused; the tokens
 * nest; reading from memory and from a stream agree. A difference aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jtok.h"

#define LINE_MAX_BYTES 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads one line from t: 1 accepted, 0 blank, -1 refused, -2 past the
 * limit, 2 the end. */
static int one_line(jtok *t)
{
    int k = jt_next(t), depth = 0;

    if (k == JT_EOF)
        return 2;
    if (k == JT_EOL)
        return 0;
    for (;; k = jt_next(t)) {
        if (k == JT_ERR) {
            if (jt_finish(t) != JT_ERR)
                abort();
            jt_next_line(t);
            return jt_too_long(t) ? -2 : -1;
        }
        if (k == JT_EOL || k == JT_EOF)
            break;
        depth += k == JT_OBJ || k == JT_ARR;
        depth -= k == JT_OBJ_END || k == JT_ARR_END;
        if (depth < 0 || depth != t->depth)
            abort();
        if ((k == JT_STR || k == JT_KEY) && strlen(t->str) != t->len)
            abort();
    }
    if (depth != 0)
        abort();
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jtok mem, str;
    FILE *f = size > 0 ? fmemopen((void *)data, size, "r") : NULL;
    size_t start = 0;

    jt_init_mem(&mem, data, size, LINE_MAX_BYTES);
    if (f != NULL && jt_init_file(&str, f, LINE_MAX_BYTES) < 0)
        abort();
    for (;;) {
        const uint8_t *nl = start < size ? memchr(data + start, '\n', size - start) : NULL;
        size_t len = (nl != NULL ? (size_t)(nl - data) : size) - start;
        int got = one_line(&mem), blank = 1, too_long = 0;
        json_t *j;

        if (f != NULL && one_line(&str) != got)
            abort();
        if (got == 2)
            break;
        if (got == -2) {
            /* the readers stop there: the rest of the line is not read */
            too_long = 1;
        } else {
            for (size_t i = 0; i < len; i++)
                blank &= data[start + i] == ' ' || data[start + i] == '\t' || data[start + i] == '\r';
            /* jansson takes a NUL byte for the end of its input: such a
             * line, which the tokenizer refuses, is not compared */
            j = json_loadb((const char *)data + start, len, JSON_DECODE_ANY, NULL);
            if ((got == 1) != (j != NULL) && !(blank && got == 0) && memchr(data + start, '\0', len) == NULL)
                abort();
            if (got == 1 && memchr(data + start, '\0', len) != NULL)
                abort();
            if (len > LINE_MAX_BYTES && got != -2)
                abort();
            json_decref(j);
        }
        if (nl == NULL || too_long)
            break;
        start += len + 1;
    }
    jt_free(&mem);
    if (f != NULL) {
        jt_free(&str);
        fclose(f);
    }
    return 0;
}
