/* test_kit.c — the shared containers (protocol/kit): arena alignment and
 * big blocks, the hash's seeding, and the table's growth, collisions,
 * deletion and many keys, checked against a plain array; and the dynamic
 * buffer's decimals (protocol/buf) against printf's. */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "check.h"
#include "kit.h"

static void test_arena(void)
{
    kit_arena a = {0};
    size_t i, sizes[] = {1, 0, 3, 7, 8, 15, 16, 17, 100, 4095, 40000, 5, 1};
    char *p[sizeof sizes / sizeof *sizes];
    char *s;

    for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        p[i] = kit_arena_alloc(&a, sizes[i]);
        CHECK(p[i] != NULL);
        CHECK_INT((uintptr_t)p[i] % alignof(max_align_t), 0);
        memset(p[i], (int)i, sizes[i]);
    }
    /* No block overlaps another: each still holds its own byte. */
    for (i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (sizes[i] != 0)
            CHECK(p[i][0] == (char)i && p[i][sizes[i] - 1] == (char)i);
    s = kit_arena_strdup(&a, "com/shop/Cart");
    CHECK_STR(s, "com/shop/Cart");
    p[0] = kit_arena_zalloc(&a, 64);
    CHECK(p[0] != NULL && p[0][0] == 0 && p[0][63] == 0);
    p[1] = kit_arena_memdup(&a, "ab\0c", 4);
    CHECK(p[1] != NULL && memcmp(p[1], "ab\0c", 4) == 0);
    kit_arena_free(&a);
    CHECK(a.head == NULL);

    /* A small chunk size: many chunks, every block aligned and intact. */
    kit_arena_init(&a, 64);
    for (i = 0; i < 1000; i++) {
        unsigned char *q = kit_arena_alloc(&a, i % 90);

        CHECK(q != NULL);
        CHECK_INT((uintptr_t)q % alignof(max_align_t), 0);
        memset(q, 0xab, i % 90);
    }
    CHECK(kit_arena_alloc(&a, SIZE_MAX - 8) == NULL);
    kit_arena_free(&a);
    /* Reusable once freed. */
    CHECK_STR(kit_arena_strdup(&a, "again"), "again");
    kit_arena_free(&a);
}

static void test_hash(void)
{
    uint64_t seed = 7;

    CHECK(kit_hash_str("abc", seed) == kit_hash("abc", 3, seed));
    CHECK(kit_hash_str("abc", seed) != kit_hash_str("abc", seed + 1));
    CHECK(kit_hash_str("abc", seed) != kit_hash_str("abd", seed));
    /* Chained strings: the split between them counts. */
    CHECK(kit_hash_str("c", kit_hash_str("ab", seed)) != kit_hash_str("bc", kit_hash_str("a", seed)));
    /* Bytes past 8 and a tail count. */
    CHECK(kit_hash_str("0123456789abcdefX", seed) != kit_hash_str("0123456789abcdefY", seed));
    CHECK(kit_hash_str("0123456789abcdef", seed) != kit_hash_str("0123456789abcdeg", seed));
    CHECK(kit_hash("", 0, seed) != 0 && kit_hash("\0", 1, seed) != kit_hash("", 0, seed));
    CHECK(kit_hash_u64(0) != 0 && kit_hash_u64(1) != kit_hash_u64(2));
}

/* Records of the table tests: key -> present. */
struct rec {
    unsigned key;
    int in;
};

static uint64_t hash_of(unsigned key, int collide)
{
    return collide ? 42 : kit_hash(&key, sizeof key, 1);
}

static struct rec *find(const kit_table *t, unsigned key, int collide, kit_cursor *c)
{
    uintptr_t v;

    for (v = kit_table_first(t, hash_of(key, collide), c); v != 0; v = kit_table_next(t, c))
        if (((struct rec *)v)->key == key)
            return (struct rec *)v;
    return NULL;
}

/* Adds n keys, deletes every third, then checks each against recs[]. */
static void many(unsigned n, int collide)
{
    kit_table t = {0};
    struct rec *recs = calloc(n, sizeof *recs);
    kit_cursor c;
    unsigned i, in = 0;
    size_t visited = 0;

    for (i = 0; i < n; i++) {
        recs[i].key = i * 2654435761u;
        CHECK(find(&t, recs[i].key, collide, &c) == NULL);
        CHECK_INT(kit_table_add(&t, hash_of(recs[i].key, collide), (uintptr_t)&recs[i]), 0);
        recs[i].in = 1;
    }
    CHECK_INT(t.n, n);
    CHECK(t.cap >= 2 * (size_t)n && (t.cap & (t.cap - 1)) == 0);
    for (i = 0; i < n; i += 3) {
        CHECK(find(&t, recs[i].key, collide, &c) == &recs[i]);
        kit_table_del(&t, &c);
        recs[i].in = 0;
    }
    for (i = 0; i < n; i++) {
        CHECK(find(&t, recs[i].key, collide, &c) == (recs[i].in ? &recs[i] : NULL));
        in += (unsigned)recs[i].in;
    }
    CHECK_INT(t.n, in);
    for (i = 0; i < t.cap; i++)
        visited += t.slots[i].val != 0;
    CHECK_INT(visited, in);
    /* Deleted keys can come back. */
    for (i = 0; i < n; i += 3) {
        CHECK_INT(kit_table_add(&t, hash_of(recs[i].key, collide), (uintptr_t)&recs[i]), 0);
        recs[i].in = 1;
    }
    for (i = 0; i < n; i++)
        CHECK(find(&t, recs[i].key, collide, &c) == &recs[i]);
    CHECK_INT(t.n, n);
    kit_table_free(&t);
    CHECK(t.slots == NULL && t.cap == 0 && t.n == 0);
    free(recs);
}

static void test_table(void)
{
    kit_table t = {0};
    kit_cursor c;
    uintptr_t v;
    int n;

    /* Empty: nothing found, nothing to free. */
    CHECK(kit_table_first(&t, 5, &c) == 0);
    CHECK(kit_table_next(&t, &c) == 0);
    kit_table_free(&t);

    /* Values under one hash are all visited: a multimap. */
    CHECK_INT(kit_table_add(&t, 9, 1), 0);
    CHECK_INT(kit_table_add(&t, 9, 2), 0);
    CHECK_INT(kit_table_add(&t, 10, 3), 0);
    for (n = 0, v = kit_table_first(&t, 9, &c); v != 0; v = kit_table_next(&t, &c))
        n += (int)v;
    CHECK_INT(n, 3);
    /* Growth across the wrap of the slot array keeps them. */
    CHECK_INT(kit_table_reserve(&t, 1000), 0);
    CHECK(t.cap >= 2000);
    for (n = 0, v = kit_table_first(&t, 9, &c); v != 0; v = kit_table_next(&t, &c))
        n += (int)v;
    CHECK_INT(n, 3);
    CHECK(kit_table_first(&t, 10, &c) == 3);
    kit_table_del(&t, &c);
    CHECK(kit_table_first(&t, 10, &c) == 0);
    CHECK_INT(t.n, 2);
    /* Cleared: nothing found, the slots kept for the values to come. */
    n = (int)t.cap;
    kit_table_clear(&t);
    CHECK_INT(t.cap, n);
    CHECK_INT(t.n, 0);
    CHECK(kit_table_first(&t, 9, &c) == 0);
    CHECK_INT(kit_table_add(&t, 9, 4), 0);
    CHECK(kit_table_first(&t, 9, &c) == 4 && kit_table_next(&t, &c) == 0);
    kit_table_free(&t);

    /* Clusters that wrap around the end of the slots: hashes near the top. */
    for (n = 0; n < 7; n++)
        CHECK_INT(kit_table_add(&t, 14 + (uint64_t)(n % 2), (uintptr_t)n + 1), 0);
    CHECK_INT(t.cap, 16);
    CHECK(kit_table_first(&t, 14, &c) != 0);
    kit_table_del(&t, &c);
    for (n = 0, v = kit_table_first(&t, 15, &c); v != 0; v = kit_table_next(&t, &c))
        n++;
    CHECK_INT(n, 3);
    for (n = 0, v = kit_table_first(&t, 14, &c); v != 0; v = kit_table_next(&t, &c))
        n++;
    CHECK_INT(n, 3);
    kit_table_free(&t);

    many(10, 0);
    many(100000, 0);
    /* Every key under one hash: one long cluster. */
    many(600, 1);
}

/* buf_dec_at writes what %llu does: every length, both sides of each
 * power of ten, and the largest. */
static void test_dec(void)
{
    uint64_t p = 1;

    for (int n = 0; n < 20; n++, p *= 10) {
        uint64_t vs[] = {p - 1, p, p + 1, p * 9 / 2 + 7};

        for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
            char got[21], want[21];
            char *e = buf_dec_at(got, vs[i]);

            *e = '\0';
            snprintf(want, sizeof want, "%llu", (unsigned long long)vs[i]);
            CHECK_STR(got, want);
        }
    }
    {
        char got[21];

        *buf_dec_at(got, UINT64_MAX) = '\0';
        CHECK_STR(got, "18446744073709551615");
    }
}

int main(void)
{
    test_dec();
    test_arena();
    test_hash();
    test_table();
    return check_status();
}
