/* fuzz_tree.c — the tree builder on arbitrary event sequences: whatever the
 * events (a call's as the probes publish it, or garbage), nothing may crash
 * or leak, a refusal has a message, and a built tree fills the call model
 * (tree_call) or is refused with a message (a call the model cannot hold:
 * then neither encoding is written). A call filled keeps SPEC §3's
 * arithmetic (a node's children never add up to more than the node, self =
 * total minus children, min <= max), renders as JSON with names in valid
 * UTF-8 whatever the method table holds, and holds the same in both
 * encodings (roundtrip.h): its compact frames decode to exactly its JSON
 * line, which the reader takes back to the same line. --aggregate's
 * straight way (tree_sum_check, tree_sum) refuses the calls tree_call
 * refuses and gives the summary that the model gives (sum_add_call).
 *
 * Input: byte 0 is the probe cost in ticks; then 3 bytes per event: its
 * kind (low 4 bits; 0x80 also sets a count or session above them), the
 * method (an index into the table below, or past it: an unknown number),
 * and the ticks since the previous event (0x80 and up: back in time). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "methods.h"
#include "proto.h"
#include "roundtrip.h"
#include "summary.h"
#include "tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_EVENTS 4096

/* Names as class files may have them: modified UTF-8 with U+0000 and a
 * surrogate pair, a lone surrogate, a stray byte. */
static const char *const names[][3] = {
    {"tgt/Root", "run", "()J"},
    {"tgt/A", "a", "(I)V"},
    {"tgt/B", "nul\xc0\x80name", "(J)J"},
    {"tgt/C", "\xed\xa0\xb5\xed\xb1\x93", "(Ltgt/\xed\xa0\xb5\xed\xb1\x93;)V"},
    {"tgt/\xed\xa0\xb5", "bad\xff", "()V"},
    {"tgt/D", "<init>", "()V"},
};
#define N_NAMES (sizeof names / sizeof names[0])

static int32_t ids[N_NAMES];

static void setup(void)
{
    static int done;
    mct_err err;
    size_t i;

    if (done)
        return;
    done = 1;
    for (i = 0; i < N_NAMES; i++)
        if ((ids[i] = mt_add(names[i][0], names[i][1], names[i][2], 1, i == 0, &err)) < 0)
            abort();
}

static void name_ok(const json_t *node, const char *key)
{
    const char *s = json_string_value(json_object_get(node, key));

    if (s == NULL || !proto_utf8_valid(s, strlen(s)))
        abort();
}

/* Checks node and its subtree; returns how many nodes it holds. */
static size_t check_node(const json_t *node, int depth)
{
    const json_t *kids = json_object_get(node, "children"), *k;
    json_int_t total = json_integer_value(json_object_get(node, "total_ns"));
    json_int_t self = json_integer_value(json_object_get(node, "self_ns"));
    json_int_t min = json_integer_value(json_object_get(node, "min_ns"));
    json_int_t max = json_integer_value(json_object_get(node, "max_ns"));
    json_int_t calls = json_integer_value(json_object_get(node, "calls"));
    json_int_t sum = 0;
    size_t i, n = 1;

    if (!json_is_array(kids) || depth > MAX_EVENTS)
        abort();
    name_ok(node, "class");
    name_ok(node, "method");
    name_ok(node, "desc");
    json_array_foreach(kids, i, k) {
        sum += json_integer_value(json_object_get(k, "total_ns"));
        n += check_node(k, depth + 1);
    }
    if (calls < 1 || min > max || total < 0 || sum > total || self != total - sum || total < min * calls)
        abort();
    return n;
}

/* The summary of tr added straight is the summary of its model c. */
static void same_summary(const tree *tr, call_tab *tab, const mct_call *c)
{
    mct_err err;
    sum *straight = sum_new(0, &err), *model = sum_new(0, &err);
    mct_buf a = {0}, b = {0};

    if (straight == NULL || model == NULL || tree_sum_check(tr, tab, &err) < 0 ||
        tree_sum(tr, tab, straight, 0, &err) < 0 || sum_add_call(model, tab, c, &err) < 0 ||
        sum_write_json(straight, 1, &a, &err) < 0 || sum_write_json(model, 1, &b, &err) < 0 || a.len != b.len ||
        memcmp(a.data, b.data, a.len) != 0)
        abort();
    buf_free(&a);
    buf_free(&b);
    sum_free(straight);
    sum_free(model);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static probe_ev ev[MAX_EVENTS];
    tree_opts o = {.cal = {.tick0 = 0, .ns_per_tick = 1.0, .wall0 = 0}};
    uint64_t t = 1u << 20;
    size_t n = 0, i;
    mct_err err;
    tree *tr;
    json_t *j;
    call_tab tab = {0};
    mct_call call = {0};
    const char *exception;

    setup();
    if (size < 1)
        return 0;
    o.probe_ticks = data[0];
    for (i = 1; i + 3 <= size && n < MAX_EVENTS; i += 3, n++) {
        uint32_t kind = data[i] & 15u;

        if (data[i] & 0x80)
            kind |= (uint32_t)(data[i] >> 4 & 7) << 4;
        t = data[i + 2] & 0x80 ? t - (data[i + 2] & 0x7f) : t + data[i + 2];
        ev[n] = (probe_ev){.t = t, .id = data[i + 1] < N_NAMES ? ids[data[i + 1]] : data[i + 1], .kind = kind};
    }
    mct_err_clear(&err);
    tr = tree_build(ev, n, &o, &err);
    if (tr == NULL) {
        if (err.code == MCT_OK || err.msg[0] == '\0')
            abort();
        return 0;
    }
    exception = tree_exception(tr) ? "java/lang/Illegal\xc0\x80State" : NULL;
    mct_err_clear(&err);
    if (tree_call(tr, &tab, &call, 1, 2, "main", exception, &err) < 0) {
        /* Only what the model cannot hold is refused: a tree too deep. */
        if (strstr(err.msg, "the tree nests deeper than") == NULL || tree_sum_check(tr, &tab, &err) == 0)
            abort();
    } else {
        same_summary(tr, &tab, &call);
        j = call_json(&tab, &call);
        if (j == NULL)
            abort();
        if ((uint64_t)json_integer_value(json_object_get(json_object_get(j, "root"), "total_ns")) !=
                tree_total_ns(tr) ||
            check_node(json_object_get(j, "root"), 0) != tree_nodes(tr))
            abort();
        json_decref(j);
        roundtrip_check(&tab, &call);
    }
    call_free(&call);
    call_tab_free(&tab);
    tree_free(tr);
    return 0;
}
