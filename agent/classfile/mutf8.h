/* mutf8.h — names as the JVM keeps them, in modified UTF-8, to and from the
 * standard UTF-8 of JSON and of the user's requests. The one converter for
 * every name that leaves the agent (call trees, plans, error messages,
 * thread names) and for the regex matcher.
 *
 * Modified UTF-8 (JVMS 4.4.7) differs from UTF-8 in two ways: U+0000 is the
 * two bytes C0 80, and a supplementary character (U+10000 and up, such as
 * U+1D453 "𝑓", a legal Java identifier) is its two UTF-16 surrogates, three
 * bytes each. Converted:
 *   - a surrogate pair becomes the character's four-byte UTF-8 sequence;
 *   - U+0000 becomes U+2400 SYMBOL FOR NULL ("␀") in names that leave the
 *     agent (MUTF8_NUL_SYMBOL): the protocol's strings are C strings, which
 *     cannot hold it. No Java compiler emits it (javac drops that ignorable
 *     character from identifiers); bytecode generators can. The regex
 *     matcher sees the real U+0000 (MUTF8_NUL_CHAR), as Java would;
 *   - what is not modified UTF-8 (a lone surrogate, a stray byte) becomes
 *     U+FFFD; standard UTF-8 (a four-byte sequence) is kept, so converting
 *     twice changes nothing.
 * The other way (mutf8_from_utf8), four-byte sequences become surrogate
 * pairs; U+2400 stays itself, so a name with U+0000 cannot be asked for. */
#ifndef MCT_MUTF8_H
#define MCT_MUTF8_H

#include <jansson.h>
#include <stddef.h>

enum mutf8_nul {
    MUTF8_NUL_SYMBOL,   /* U+0000 -> U+2400 */
    MUTF8_NUL_CHAR      /* U+0000 -> the byte 0 (the length tells the end) */
};

/* Room mutf8_to_utf8 needs for a name of n bytes (with the terminating NUL). */
#define MUTF8_ROOM(n) (3 * (size_t)(n) + 1)

/* Room mutf8_from_utf8 needs for a string of n bytes (with the NUL). */
#define MUTF8_FROM_ROOM(n) ((size_t)(n) / 2 * 3 + 2)

/* 1 when s (modified UTF-8, NUL-terminated) is standard UTF-8 already, that
 * is, mutf8_to_utf8 would copy it unchanged; else 0. */
int mutf8_plain(const char *s);

/* Converts s into out, which has room for MUTF8_ROOM(strlen(s)) bytes;
 * returns the length written (out is NUL-terminated after it). */
size_t mutf8_to_utf8(const char *s, char *out, enum mutf8_nul nul);

/* A malloc'd UTF-8 copy of s (MUTF8_NUL_SYMBOL), or NULL when out of memory. */
char *mutf8_dup(const char *s);

/* A new JSON string of the name s (MUTF8_NUL_SYMBOL); NULL when out of
 * memory. */
json_t *mutf8_json(const char *s);

/* Converts the UTF-8 string s into modified UTF-8 in out, which has room for
 * MUTF8_FROM_ROOM(strlen(s)) bytes; returns the length written. */
size_t mutf8_from_utf8(const char *s, char *out);

/* Class names: the internal form ("com/shop/Cart", JVMS 4.2.1) to the
 * binary one ("com.shop.Cart"). A '/' is never part of a multi-byte
 * sequence, so this holds for modified and standard UTF-8 alike. */

/* Rewrites the len bytes of name in place (they may hold the byte 0 of
 * MUTF8_NUL_CHAR); returns name. */
char *mutf8_binary_name(char *name, size_t len);

/* Copies internal into buf (of size bytes, cut to fit) as a binary name;
 * returns buf. */
const char *mutf8_binary_copy(const char *internal, char *buf, size_t size);

#endif
