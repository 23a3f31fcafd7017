/* wrapline.c — see wrapline.h. */
#include "wrapline.h"

#include <string.h>

#include "proto.h"
#include "reader.h"

/* Checks that key of o is a string (UTF-8: jansson's). */
static int need_string(const json_t *o, const char *type, const char *key, mct_err *e)
{
    if (!json_is_string(json_object_get(o, key)))
        return mct_err_set(e, MCT_E_PROTO, "\"%s\" line: \"%s\" is missing or not a string", type, key);
    return 0;
}

static int check_start(const json_t *o, mct_err *e)
{
    const json_t *pid = json_object_get(o, "pid");

    if (!json_is_integer(pid) || json_integer_value(pid) <= 0 || json_integer_value(pid) > 0x7fffffff)
        return mct_err_set(e, MCT_E_PROTO, "\"start\" line: \"pid\" is missing or not a positive integer");
    if (need_string(o, "start", "vm", e) < 0 || need_string(o, "start", "version", e) < 0 ||
        need_string(o, "start", "entry", e) < 0)
        return -1;
    return 0;
}

static int check_gate(const json_t *o, mct_err *e)
{
    const json_t *failures = json_object_get(o, "failures");

    if (!json_is_boolean(json_object_get(o, "passed")))
        return mct_err_set(e, MCT_E_PROTO, "\"gate\" line: \"passed\" is missing or not a boolean");
    if (!json_is_array(failures))
        return mct_err_set(e, MCT_E_PROTO, "\"gate\" line: \"failures\" is missing or not an array");
    for (size_t i = 0; i < json_array_size(failures); i++)
        if (!json_is_string(json_array_get(failures, i)))
            return mct_err_set(e, MCT_E_PROTO, "\"gate\" line: failure %zu is not a string", i);
    return 0;
}

/* The end reply, whose file form may say "entry_loaded": checked on a copy
 * without that key. */
static int check_end(const json_t *o, mct_err *e)
{
    const json_t *loaded = json_object_get(o, "entry_loaded");
    json_t *copy;
    int rc;

    if (loaded != NULL && !json_is_boolean(loaded))
        return mct_err_set(e, MCT_E_PROTO, "\"end\" line: \"entry_loaded\" is not a boolean");
    if (loaded == NULL)
        return proto_validate(o, PROTO_REPLY, e);
    copy = json_copy((json_t *)o);
    if (copy == NULL)
        return mct_err_set(e, MCT_E_NOMEM, "out of memory");
    json_object_del(copy, "entry_loaded");
    rc = proto_validate(copy, PROTO_REPLY, e);
    json_decref(copy);
    return rc;
}

static int check(const json_t *o, mct_err *e)
{
    const char *type = json_string_value(json_object_get(o, "type"));

    if (!json_is_object(o))
        return mct_err_set(e, MCT_E_PROTO, "not a JSON object");
    if (type == NULL)
        return mct_err_set(e, MCT_E_PROTO, "no \"type\" string");
    if (strcmp(type, "start") == 0)
        return check_start(o, e);
    if (strcmp(type, "gate") == 0)
        return check_gate(o, e);
    if (strcmp(type, "summary") == 0)
        return sum_json_check(o, e);
    if (strcmp(type, "end") == 0)
        return check_end(o, e);
    if (strcmp(type, "plan") == 0 || strcmp(type, "call") == 0 || strcmp(type, "status") == 0 ||
        strcmp(type, "error") == 0)
        return proto_validate(o, PROTO_REPLY, e);
    return mct_err_set(e, MCT_E_PROTO, "unknown line type \"%.64s\"", type);
}

int wrapline_parse(const char *line, size_t len, struct wrapline *out, mct_err *e)
{
    json_error_t jerr;
    json_t *o;

    *out = (struct wrapline){ 0 };
    if (len > WRAPLINE_MAX)
        return mct_err_set(e, MCT_E_PROTO, "a line of %zu bytes, over the cap of %zu", len, WRAPLINE_MAX);
    if (reader_is_summary(line, len))
        return (out->summary = sum_read_text(line, len, &out->info, e)) != NULL ? 0 : -1;
    o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (o == NULL)
        return mct_err_set(e, MCT_E_PROTO, "invalid JSON at byte %d: %s", jerr.position, jerr.text);
    if (check(o, e) < 0) {
        json_decref(o);
        return -1;
    }
    out->msg = o;
    return 0;
}
