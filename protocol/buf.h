/* buf.h — the one growable buffer of agent and client: bytes for writers of
 * big-endian binary formats (class files, frames, compact calls) and text
 * for writers of lines (JSON, folded stacks). Appends never fail loudly: the
 * first allocation failure makes the buffer "failed" and every later append
 * a no-op, so a writer checks buf_failed() once at the end. */
#ifndef MCT_BUF_H
#define MCT_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct mct_buf {
    uint8_t *data;  /* owned; NULL until the first append */
    size_t len;
    size_t cap;
    int failed;     /* non-zero after an allocation failure */
} mct_buf;

/* Initialises an empty buffer. */
void buf_init(mct_buf *b);

/* Frees the buffer's memory and empties it. */
void buf_free(mct_buf *b);

/* Makes room for n more bytes; returns 0, or -1 and marks the buffer failed. */
int buf_reserve(mct_buf *b, size_t n);

void buf_u1(mct_buf *b, uint8_t v);
void buf_u2(mct_buf *b, uint16_t v);
void buf_u4(mct_buf *b, uint32_t v);
void buf_u8(mct_buf *b, uint64_t v);
void buf_bytes(mct_buf *b, const void *p, size_t n);
/* Text: s's bytes (no NUL), one character. */
void buf_str(mct_buf *b, const char *s);
void buf_ch(mct_buf *b, char c);
/* printf into b, no NUL kept; the buffer fails on a format error. */
void buf_printf(mct_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends v in decimal (what buf_printf's %llu gives, without its cost). */
void buf_dec(mct_buf *b, uint64_t v);
/* Appends ,"key":v, v in decimal (key borrowed: a name that JSON needs
 * no escape for). */
void buf_key_dec(mct_buf *b, const char *key, uint64_t v);
/* Writes v in decimal at w (room for 20 bytes, no NUL); the end. */
char *buf_dec_at(char *w, uint64_t v);

/* Room for n bytes at the end of b, which now counts them: where to write
 * them, or NULL when the buffer failed. */
uint8_t *buf_take(mct_buf *b, size_t n);

/* Empties b, keeping its memory; a failed buffer is usable again. */
void buf_reset(mct_buf *b);

/* Overwrites 4 bytes already written at off (off + 4 <= len). */
void buf_put_u4(mct_buf *b, size_t off, uint32_t v);

/* Non-zero when an append failed; the content is then incomplete. */
static inline int buf_failed(const mct_buf *b) { return b->failed; }

/* Hands the bytes to the caller (who frees them with free()) and empties b;
 * returns NULL if the buffer failed (and frees it). */
uint8_t *buf_steal(mct_buf *b, size_t *len);

/* Makes room in the array *arr (elements of size bytes, n in use, *cap
 * allocated) for one more, doubling its capacity from first; 0, or -1 with
 * *arr and *cap unchanged. arr is the address of the array's pointer. */
int buf_grow(void *arr, size_t *cap, size_t n, size_t size, size_t first);

/* buf_grow for need elements in all (n in use or not: what they hold
 * stays), the capacity doubled from first until it holds them. */
int buf_room(void *arr, size_t *cap, size_t need, size_t size, size_t first);

/* Big-endian reads from memory the caller has bounds-checked. */
static inline uint16_t buf_get_u2(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t buf_get_u4(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
