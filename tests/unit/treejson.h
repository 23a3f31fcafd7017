/* treejson.h — a built tree as its `call` object, for the tests that look
 * at a tree's figures by key (test_tree, test_probe, fuzz_tree): the tree
 * fills the call model (tree_call), which renders through the one JSON
 * writer (call_json). */
#ifndef MCT_TEST_TREEJSON_H
#define MCT_TEST_TREEJSON_H

#include <stdio.h>

#include "call.h"
#include "tree.h"

/* Call t (numbered seq, on thread tid named thread, with exception or
 * NULL) as a `call` object, or NULL when the model refuses it (said on
 * stderr when loud); the caller decrefs. */
static inline json_t *tree_to_json(const tree *t, uint64_t seq, int64_t tid, const char *thread,
                                   const char *exception, int loud)
{
    call_tab tab = {0};
    mct_call c = {0};
    json_t *j = NULL;
    mct_err e;

    if (tree_call(t, &tab, &c, seq, tid, thread, exception, &e) == 0)
        j = call_json(&tab, &c);
    else if (loud)
        fprintf(stderr, "tree_call: %s\n", e.msg);
    call_free(&c);
    call_tab_free(&tab);
    return j;
}

#endif
