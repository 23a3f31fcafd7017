/* fuzz_calljson.c — the call model's JSON reader (call_from_json) on
 * arbitrary bytes, as `diff`, the wrap form and the startup trace read
 * calls from files: the input is parsed as JSON, then read as a call.
 * Nothing may crash or leak, every refusal has a message, and an accepted
 * call holds the same in both encodings (roundtrip.h). The same input read
 * twice into one table (as a file's calls are) reads the same. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    call_tab tab = {0};
    mct_call call = {0};
    mct_buf first = {0}, second = {0};
    mct_err e;

    if (j == NULL)
        return 0;
    mct_err_clear(&e);
    if (call_from_json(&tab, &call, j, &e) < 0) {
        if (e.code == MCT_OK || e.msg[0] == '\0')
            abort();
    } else {
        roundtrip_check(&tab, &call);
        if (call_json_line(&first, &tab, &call) < 0 || call_from_json(&tab, &call, j, &e) < 0 ||
            call_json_line(&second, &tab, &call) < 0 || first.len != second.len ||
            memcmp(first.data, second.data, first.len) != 0)
            abort();
    }
    buf_free(&first);
    buf_free(&second);
    call_free(&call);
    call_tab_free(&tab);
    json_decref(j);
    return 0;
}
