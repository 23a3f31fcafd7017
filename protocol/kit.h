/* kit.h — the containers both programs share: an arena, one hash function
 * and one open-addressing hash table. Plain C, no JNI/JVMTI, no agent or
 * client header; nothing here locks (a container belongs to one thread at a
 * time, or to the caller's lock).
 *
 * Arena: many small blocks freed together. kit_arena is a value the caller
 * owns (zero-initialised, or kit_arena_init for another chunk size); every
 * block it hands out is aligned for any type and lives until
 * kit_arena_free.
 *
 * Hash: kit_hash over bytes (and kit_hash_str over a C string), seeded so
 * that several strings chain into one hash: kit_hash_str(b, kit_hash_str(a,
 * seed)). Never 0, so that callers may use 0 as "not computed yet".
 * kit_hash_u64 mixes an integer or a pointer the same way.
 *
 * Table: an open-addressing table (linear probing, at most half full) of
 * (hash, value) pairs. The value is a non-zero uintptr_t the caller
 * chooses: a pointer to its own record, or an index + 1. The table does not
 * know keys: a lookup walks the values stored under the same 64-bit hash
 * (kit_table_first, kit_table_next) and the caller compares its key with
 * each. The table owns its slot array only; what values point to belongs to
 * the caller. Typical use:
 *
 *     kit_cursor c;
 *     for (v = kit_table_first(t, h, &c); v != 0; v = kit_table_next(t, &c))
 *         if (same_key((struct rec *)v, key))
 *             return (struct rec *)v;
 *     ... make rec ...; if (kit_table_add(t, h, (uintptr_t)rec) < 0) ... out of memory
 *
 * A set of pointers is a table whose values are the pointers themselves,
 * hashed with kit_hash_u64((uintptr_t)p). */
#ifndef MCT_KIT_H
#define MCT_KIT_H

#include <stddef.h>
#include <stdint.h>

/* --- arena -------------------------------------------------------------------- */

/* The chunk size of a zero-initialised arena. */
#define KIT_ARENA_CHUNK 32768

struct kit_chunk;

typedef struct kit_arena {
    struct kit_chunk *head;     /* owned: the chunks, newest first */
    size_t chunk;               /* bytes per chunk; 0: KIT_ARENA_CHUNK */
} kit_arena;

/* Makes a an empty arena whose chunks hold chunk bytes (0: the default). */
void kit_arena_init(kit_arena *a, size_t chunk);

/* n bytes (uninitialised; n may be 0) aligned for any type, owned by a;
 * NULL when out of memory. A block bigger than the chunk size gets its own
 * chunk. */
void *kit_arena_alloc(kit_arena *a, size_t n);

/* n zeroed bytes owned by a; NULL when out of memory. */
void *kit_arena_zalloc(kit_arena *a, size_t n);

/* A copy of the n bytes at p, owned by a; NULL when out of memory. */
void *kit_arena_memdup(kit_arena *a, const void *p, size_t n);

/* A copy of the string s, owned by a; NULL when out of memory. */
char *kit_arena_strdup(kit_arena *a, const char *s);

/* Frees every block of a at once; a is then empty (and reusable). */
void kit_arena_free(kit_arena *a);

/* --- hash ------------------------------------------------------------------------ */

/* A 64-bit hash of the n bytes at p, seeded with seed; never 0. */
uint64_t kit_hash(const void *p, size_t n, uint64_t seed);

/* kit_hash of the string s (without its NUL); never 0. */
uint64_t kit_hash_str(const char *s, uint64_t seed);

/* A 64-bit mix of the integer k (a pointer as uintptr_t); never 0. */
uint64_t kit_hash_u64(uint64_t k);

/* --- table ----------------------------------------------------------------------- */

struct kit_slot {
    uint64_t hash;
    uintptr_t val;              /* 0: empty */
};

/* Callers only read it: every value is some slots[i].val != 0, i < cap
 * (that is how to visit them all, to free what they point to). */
typedef struct kit_table {
    struct kit_slot *slots;     /* owned; a power of 2 of them, or NULL */
    size_t cap;                 /* number of slots */
    size_t n;                   /* values stored */
} kit_table;

/* Where a lookup stands; filled by kit_table_first. */
typedef struct kit_cursor {
    uint64_t hash;
    size_t i;                   /* the slot of the value last returned */
} kit_cursor;

/* The first value stored under hash (in no particular order), or 0 when
 * there is none; fills c for kit_table_next and kit_table_del. t may be
 * empty (zero-initialised). */
uintptr_t kit_table_first(const kit_table *t, uint64_t hash, kit_cursor *c);

/* The next value stored under c's hash, or 0 when there is no other. */
uintptr_t kit_table_next(const kit_table *t, kit_cursor *c);

/* Stores val (non-zero) under hash, beside any value already there (the
 * caller looks first when keys must be unique); 0, or -1 when out of memory
 * with t unchanged. Values do not move in memory, slots do: a cursor is
 * spent once the table changes. */
int kit_table_add(kit_table *t, uint64_t hash, uintptr_t val);

/* Removes the value c was last at (returned by kit_table_first or
 * kit_table_next); c is then spent. */
void kit_table_del(kit_table *t, const kit_cursor *c);

/* Makes room for n values in all without growing again; 0, or -1 when out
 * of memory with t unchanged. */
int kit_table_reserve(kit_table *t, size_t n);

/* Empties t, keeping its slots for the values to come (a table filled
 * again and again, without growing from nothing each time). */
void kit_table_clear(kit_table *t);

/* Frees the slots; t is then empty (and reusable). What values point to is
 * the caller's. */
void kit_table_free(kit_table *t);

#endif
