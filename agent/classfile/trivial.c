/* trivial.c — see trivial.h. */
#include "trivial.h"

#include <string.h>

#include "bytecode.h"

/* Whether ldc's constant at idx is a number or a string. */
static int plain_constant(const cf_class *c, uint16_t idx)
{
    uint8_t tag;

    if (idx == 0 || idx >= c->cp_count)
        return 0;
    tag = c->cp[idx].tag;
    return tag == CF_INTEGER || tag == CF_FLOAT || tag == CF_LONG || tag == CF_DOUBLE || tag == CF_STRING;
}

/* Whether the field instruction's reference at idx is to a field of c. */
static int own_field(const cf_class *c, uint16_t idx)
{
    cf_ref ref;

    return cf_member_ref(c, idx, &ref) == 0 && ref.tag == CF_FIELDREF && strcmp(ref.owner, c->name) == 0;
}

/* Whether instruction in keeps a method trivial. */
static int trivial_insn(const cf_class *c, const bc_insn *in)
{
    if (in->flags & BC_F_INVOKE)
        return 0;
    if ((in->flags & BC_F_BRANCH) && (in->target <= (int64_t)in->pc || in->op == BC_JSR || in->op == BC_JSR_W))
        return 0;
    switch (in->op) {
    case BC_TABLESWITCH:
    case BC_LOOKUPSWITCH:
    case BC_NEW:
    case BC_NEWARRAY:
    case BC_ANEWARRAY:
    case BC_MULTIANEWARRAY:
    case BC_MONITORENTER:
    case BC_MONITOREXIT:
    case BC_ATHROW:
    case BC_RET:
    case BC_CHECKCAST:
    case BC_INSTANCEOF:
        return 0;
    case BC_LDC:
    case BC_LDC_W:
    case BC_LDC2_W:
        return plain_constant(c, in->index);
    case BC_GETSTATIC:
    case BC_PUTSTATIC:
    case BC_GETFIELD:
    case BC_PUTFIELD:
        return own_field(c, in->index);
    default:
        return 1;
    }
}

int cf_trivial(const cf_class *c, const cf_member *m)
{
    const cf_code *code = m->code;
    mct_err err;

    if (code == NULL || code->code_len > TRIVIAL_CODE_MAX || code->n_handlers > 0 ||
        (m->access & CF_ACC_SYNCHRONIZED))
        return 0;
    for (uint32_t pc = 0; pc < code->code_len;) {
        bc_insn in;

        if (bc_decode(code->code, code->code_len, pc, &in, &err) < 0 || !trivial_insn(c, &in))
            return 0;
        pc += in.len;
    }
    return 1;
}
