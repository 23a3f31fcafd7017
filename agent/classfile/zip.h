/* zip.h — one entry of a zip archive (a jar), read without trusting the
 * archive: its end of central directory record, its central directory, the
 * entry's local header and its data, stored or deflated (zlib), checked
 * against the entry's CRC-32. Bytes before the archive (a launch script
 * prepended to an executable jar) are allowed, as the JDK allows them. ZIP64,
 * encryption and archives split over several disks are refused with a
 * message. The archive is read through a callback (pread on a file, or
 * memory), never mapped: a file that shrinks under the reader gives an
 * error, not a signal in the JVM. */
#ifndef MCT_ZIP_H
#define MCT_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Reads n bytes at offset off of the archive into buf: 0, or -1 when they
 * cannot all be read. */
typedef int (*zip_read_fn)(void *arg, uint64_t off, void *buf, size_t n);

/* The entry named name (compared byte for byte with the central
 * directory's names) of the archive of size bytes that rd reads, what
 * names it in messages: malloc'd bytes the caller frees, *len their count
 * (at most max). NULL with e set: MCT_E_NOTFOUND (no such entry),
 * MCT_E_CLASSFILE (not a valid archive, or the entry's data is damaged),
 * MCT_E_UNSUPPORTED (ZIP64, encrypted, split, or a compression method other
 * than stored and deflated), MCT_E_TOOBIG (over max), MCT_E_IO (a read
 * failed), MCT_E_NOMEM. */
uint8_t *zip_entry(zip_read_fn rd, void *arg, uint64_t size, const char *what, const char *name, size_t max,
                   size_t *len, mct_err *e);

#endif
