/* fuzz_crec.c — the client's decoder of compact calls (call.h) on arbitrary
 * bytes: the input is a stream of frames as the agent sends them (an 8-byte
 * header, then the payload), decoded in order into one table of methods as
 * on one connection. Nothing may crash or leak, every refusal has a
 * message, and an accepted call holds the same in both encodings
 * (roundtrip.h): its JSON line read back, and its frames encoded again and
 * decoded, give the same line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "proto.h"
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    call_tab tab = {0};
    mct_call call = {0};
    size_t pos = 0;

    while (size - pos >= PROTO_HEADER_LEN) {
        uint32_t len;
        mct_err e;
        int rc;

        mct_err_clear(&e);
        if (proto_header_decode(data + pos, PROTO_REPLY, &len, &e) < 0 || size - pos - PROTO_HEADER_LEN < len)
            break;
        pos += PROTO_HEADER_LEN;
        rc = call_decode(&tab, &call, data + pos, len, &e);
        pos += len;
        if (rc < 0) {
            if (e.code == MCT_OK || e.msg[0] == '\0')
                abort();
            continue;
        }
        if (rc == CALL_REC)
            roundtrip_check(&tab, &call);
        else if (rc != CALL_DEF)
            abort();
    }
    call_free(&call);
    call_tab_free(&tab);
    return 0;
}
