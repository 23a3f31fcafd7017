/* reader.c — see reader.h. */
#include "reader.h"

#include <stdlib.h>
#include <string.h>

#include "proto.h"

void reader_init(reader *rd, call_tab *tab, mct_call *call, replies *judge, const struct reader_cb *cb,
                 void *ctx)
{
    *rd = (reader){.tab = tab, .call = call, .judge = judge, .cb = cb, .ctx = ctx};
}

/* The call just read: handed on, then judged whatever the callback did
 * with it (a judge that cannot count it says so in its verdict). */
static int got_call(reader *rd)
{
    const struct reader_cb *cb = rd->cb;
    int rc = cb->on_call != NULL ? cb->on_call(rd->ctx, rd->tab, rd->call) : 0;
    mct_err e;

    if (rd->judge != NULL)
        replies_call(rd->judge, rd->tab, rd->call, &e);
    return rc;
}

int reader_json(reader *rd, json_t *msg, mct_err *e)
{
    const struct reader_cb *cb = rd->cb;
    const char *type = json_string_value(json_object_get(msg, "type"));

    if (type == NULL)
        return mct_err_set(e, MCT_E_PROTO, "a reply without a \"type\"");
    if (strcmp(type, "call") == 0) {
        if (call_from_json(rd->tab, rd->call, msg, e) < 0)
            return -1;
        return got_call(rd);
    }
    if (strcmp(type, "summary") == 0) {
        /* A tree already (a peer that did not put "type" first): its text
         * read into the model as any summary. */
        char *text = json_dumps(msg, JSON_COMPACT);
        int rc;

        if (text == NULL)
            return mct_err_set(e, MCT_E_NOMEM, "out of memory reading a summary");
        rc = reader_summary_text(rd, text, strlen(text), e);
        free(text);
        return rc;
    }
    if (strcmp(type, "plan") == 0)
        return cb->on_plan != NULL ? cb->on_plan(rd->ctx, msg) : 0;
    if (strcmp(type, "status") == 0)
        return cb->on_status != NULL ? cb->on_status(rd->ctx, msg) : 0;
    if (strcmp(type, "gate") == 0)
        return cb->on_gate != NULL ? cb->on_gate(rd->ctx, json_is_true(json_object_get(msg, "passed"))) : 0;
    if (strcmp(type, "end") == 0)
        return cb->on_end != NULL ? cb->on_end(rd->ctx, msg) : 0;
    if (strcmp(type, "error") == 0)
        return cb->on_error != NULL ? cb->on_error(rd->ctx, msg) : 0;
    return cb->on_other != NULL ? cb->on_other(rd->ctx, type, msg) : 0;
}

int reader_summary(reader *rd, sum *s, const struct sum_info *info)
{
    const struct reader_cb *cb = rd->cb;
    int rc = cb->on_summary != NULL ? cb->on_summary(rd->ctx, s, info) : 0;

    /* The final summary is judged instead of the calls. */
    if (rd->judge != NULL && info->final)
        replies_final(rd->judge, s);
    else
        sum_free(s);
    return rc;
}

int reader_is_summary(const void *text, size_t len)
{
    static const char lead[] = "{\"type\":\"summary\"";

    return len >= sizeof lead - 1 && memcmp(text, lead, sizeof lead - 1) == 0;
}

int reader_summary_text(reader *rd, const void *text, size_t len, mct_err *e)
{
    struct sum_info info;
    sum *s = sum_read_text(text, len, &info, e);

    return s == NULL ? -1 : reader_summary(rd, s, &info);
}

int reader_is_compact(const unsigned char *payload, size_t len)
{
    return len > 0 && (payload[0] == CALL_DEF || payload[0] == CALL_REC);
}

int reader_compact(reader *rd, const unsigned char *payload, size_t len, mct_err *e)
{
    int n = call_decode(rd->tab, rd->call, payload, len, e);

    if (n < 0)
        return -1;
    return n == CALL_REC ? got_call(rd) : 0;
}
