/* fuzz_classfile.c — the class file parser, the instruction decoder and the
 * rewriter on arbitrary bytes: parse, scan every method, rewrite every
 * method (every other one keeping its entry probe's answer in a local);
 * nothing may crash, leak or read out of bounds, every error has a
 * message, and whatever the rewriter writes must parse again with every
 * rewritten method's code decoding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bytecode.h"
#include "classfile.h"
#include "rewrite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const rw_probes probes = {"fuzz/Probe", "enter", "exit", "fail", 0, NULL, 0};
static const rw_probes kept_probes = {"fuzz/Probe", "enterKept", "exitKept", "fail", 0, NULL, 1};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mct_err err;
    cf_class *c, *oc;
    rw_target *t;
    rw_outcome *o;
    uint8_t *out = NULL;
    size_t out_len = 0, i;
    int rc;

    mct_err_clear(&err);
    c = cf_parse(data, size, &err);
    if (c == NULL) {
        if (err.code == MCT_OK || err.msg[0] == '\0')
            abort();
        return 0;
    }
    for (i = 0; i < c->n_methods; i++)
        if (c->methods[i].code != NULL)
            bc_scan(c->methods[i].code->code, c->methods[i].code->code_len, NULL, &err);
    t = calloc(c->n_methods + 1u, sizeof *t);
    o = calloc(c->n_methods + 1u, sizeof *o);
    if (t == NULL || o == NULL)
        abort();
    for (i = 0; i < c->n_methods; i++) {
        t[i].method = (uint16_t)i;
        /* every push form: iconst, bipush, sipush, ldc */
        t[i].id = (int32_t)((i % 4) * 20000 + i) - 2;
        t[i].probes = i % 2 ? &kept_probes : &probes;
    }
    rc = rw_rewrite(c, t, c->n_methods, o, &out, &out_len, &err);
    if (rc < 0 && (out != NULL || err.msg[0] == '\0'))
        abort();
    if (out != NULL) {
        oc = cf_parse(out, out_len, &err);
        if (oc == NULL || oc->n_methods != c->n_methods)
            abort();
        for (i = 0; i < c->n_methods; i++) {
            if (o[i].status == RW_REWRITTEN) {
                if (oc->methods[i].code == NULL || oc->methods[i].code->code_len != o[i].new_len ||
                    bc_scan(oc->methods[i].code->code, oc->methods[i].code->code_len, NULL, &err) < 0)
                    abort();
            } else if (o[i].reason[0] == '\0') {
                abort();
            }
        }
        cf_free(oc);
    }
    free(out);
    free(t);
    free(o);
    cf_free(c);
    return 0;
}
