/* zipmem.h — a zip archive held in memory, read through zip_entry's read
 * callback: what the zip reader's unit test and its fuzz target share. */
#ifndef MCT_TESTS_ZIPMEM_H
#define MCT_TESTS_ZIPMEM_H

#include <stdint.h>
#include <string.h>

/* The archive's bytes, borrowed. */
struct zip_mem {
    const uint8_t *data;
    size_t size;
};

/* zip_entry's read callback over arg, a struct zip_mem: 0, or -1 when the
 * range is not all inside it. */
static inline int zip_mem_read(void *arg, uint64_t off, void *buf, size_t n)
{
    const struct zip_mem *m = arg;

    if (off > m->size || n > m->size - off)
        return -1;
    memcpy(buf, m->data + off, n);
    return 0;
}

#endif
