/* fuzz_attach_reply.c — the client's parser of a JVM's reply to the attach
 * `load` request (attach_parse_load_reply) on arbitrary bytes: the reply
 * comes from a process the client does not control. Nothing may crash or
 * read out of bounds; a failure has a message; a success has an outcome and
 * a message that fits its buffer; an agent return code is kept only for the
 * outcomes that have one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attach.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct attach_reply r;
    mct_err e;

    mct_err_clear(&e);
    if (attach_parse_load_reply((const char *)data, size, &r, &e) < 0) {
        if (e.code == MCT_OK || e.msg[0] == '\0' || strlen(e.msg) >= sizeof e.msg)
            abort();
        return 0;
    }
    if (strlen(r.message) >= sizeof r.message)
        abort();
    switch (r.outcome) {
    case ATTACH_LOADED:
        if (r.agent_rc != 0)
            abort();
        break;
    case ATTACH_AGENT_FAILED:
        if (r.agent_rc == 0)
            abort();
        break;
    case ATTACH_NOT_LOADED:
    case ATTACH_DYNLOAD_DISABLED:
    case ATTACH_REFUSED:
        if (r.agent_rc != 0)
            abort();
        break;
    default:
        abort();
    }
    return 0;
}
