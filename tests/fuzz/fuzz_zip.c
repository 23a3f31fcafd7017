/* fuzz_zip.c — the zip reader on arbitrary bytes, as the agent reads a jar
 * at a class's code source: the entries A.class and p/B.class looked up
 * (read from memory through the callback); nothing may crash, leak or read
 * out of bounds, every error has a message, and an entry read has at most
 * the bytes asked for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zip.h"
#include "zipmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"A.class", "p/B.class"};
    struct zip_mem m = {data, size};
    size_t i;

    for (i = 0; i < sizeof names / sizeof *names; i++) {
        mct_err err;
        size_t len = 0;
        uint8_t *bytes;

        mct_err_clear(&err);
        bytes = zip_entry(zip_mem_read, &m, size, "fuzz.jar", names[i], 1u << 20, &len, &err);
        if (bytes == NULL && err.msg[0] == '\0')
            abort();
        if (bytes != NULL && len > 1u << 20)
            abort();
        free(bytes);
    }
    return 0;
}
