/* bytecode.c — see bytecode.h. */
#include "bytecode.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"

struct bc_info {
    const char *name;
    uint8_t form;
    uint8_t flags;
};

/* Indexed by opcode; entries past jsr_w (0xc9) are invalid in class files. */
static const struct bc_info bc_table[256] = {
    [0x00] = {"nop", BC_FORM_NONE, 0},
    [0x01] = {"aconst_null", BC_FORM_NONE, 0},
    [0x02] = {"iconst_m1", BC_FORM_NONE, 0},
    [0x03] = {"iconst_0", BC_FORM_NONE, 0},
    [0x04] = {"iconst_1", BC_FORM_NONE, 0},
    [0x05] = {"iconst_2", BC_FORM_NONE, 0},
    [0x06] = {"iconst_3", BC_FORM_NONE, 0},
    [0x07] = {"iconst_4", BC_FORM_NONE, 0},
    [0x08] = {"iconst_5", BC_FORM_NONE, 0},
    [0x09] = {"lconst_0", BC_FORM_NONE, 0},
    [0x0a] = {"lconst_1", BC_FORM_NONE, 0},
    [0x0b] = {"fconst_0", BC_FORM_NONE, 0},
    [0x0c] = {"fconst_1", BC_FORM_NONE, 0},
    [0x0d] = {"fconst_2", BC_FORM_NONE, 0},
    [0x0e] = {"dconst_0", BC_FORM_NONE, 0},
    [0x0f] = {"dconst_1", BC_FORM_NONE, 0},
    [0x10] = {"bipush", BC_FORM_BYTE, 0},
    [0x11] = {"sipush", BC_FORM_SHORT, 0},
    [0x12] = {"ldc", BC_FORM_LDC, 0},
    [0x13] = {"ldc_w", BC_FORM_CP, 0},
    [0x14] = {"ldc2_w", BC_FORM_CP, 0},
    [0x15] = {"iload", BC_FORM_LOCAL, 0},
    [0x16] = {"lload", BC_FORM_LOCAL, 0},
    [0x17] = {"fload", BC_FORM_LOCAL, 0},
    [0x18] = {"dload", BC_FORM_LOCAL, 0},
    [0x19] = {"aload", BC_FORM_LOCAL, 0},
    [0x1a] = {"iload_0", BC_FORM_NONE, 0},
    [0x1b] = {"iload_1", BC_FORM_NONE, 0},
    [0x1c] = {"iload_2", BC_FORM_NONE, 0},
    [0x1d] = {"iload_3", BC_FORM_NONE, 0},
    [0x1e] = {"lload_0", BC_FORM_NONE, 0},
    [0x1f] = {"lload_1", BC_FORM_NONE, 0},
    [0x20] = {"lload_2", BC_FORM_NONE, 0},
    [0x21] = {"lload_3", BC_FORM_NONE, 0},
    [0x22] = {"fload_0", BC_FORM_NONE, 0},
    [0x23] = {"fload_1", BC_FORM_NONE, 0},
    [0x24] = {"fload_2", BC_FORM_NONE, 0},
    [0x25] = {"fload_3", BC_FORM_NONE, 0},
    [0x26] = {"dload_0", BC_FORM_NONE, 0},
    [0x27] = {"dload_1", BC_FORM_NONE, 0},
    [0x28] = {"dload_2", BC_FORM_NONE, 0},
    [0x29] = {"dload_3", BC_FORM_NONE, 0},
    [0x2a] = {"aload_0", BC_FORM_NONE, 0},
    [0x2b] = {"aload_1", BC_FORM_NONE, 0},
    [0x2c] = {"aload_2", BC_FORM_NONE, 0},
    [0x2d] = {"aload_3", BC_FORM_NONE, 0},
    [0x2e] = {"iaload", BC_FORM_NONE, 0},
    [0x2f] = {"laload", BC_FORM_NONE, 0},
    [0x30] = {"faload", BC_FORM_NONE, 0},
    [0x31] = {"daload", BC_FORM_NONE, 0},
    [0x32] = {"aaload", BC_FORM_NONE, 0},
    [0x33] = {"baload", BC_FORM_NONE, 0},
    [0x34] = {"caload", BC_FORM_NONE, 0},
    [0x35] = {"saload", BC_FORM_NONE, 0},
    [0x36] = {"istore", BC_FORM_LOCAL, 0},
    [0x37] = {"lstore", BC_FORM_LOCAL, 0},
    [0x38] = {"fstore", BC_FORM_LOCAL, 0},
    [0x39] = {"dstore", BC_FORM_LOCAL, 0},
    [0x3a] = {"astore", BC_FORM_LOCAL, 0},
    [0x3b] = {"istore_0", BC_FORM_NONE, 0},
    [0x3c] = {"istore_1", BC_FORM_NONE, 0},
    [0x3d] = {"istore_2", BC_FORM_NONE, 0},
    [0x3e] = {"istore_3", BC_FORM_NONE, 0},
    [0x3f] = {"lstore_0", BC_FORM_NONE, 0},
    [0x40] = {"lstore_1", BC_FORM_NONE, 0},
    [0x41] = {"lstore_2", BC_FORM_NONE, 0},
    [0x42] = {"lstore_3", BC_FORM_NONE, 0},
    [0x43] = {"fstore_0", BC_FORM_NONE, 0},
    [0x44] = {"fstore_1", BC_FORM_NONE, 0},
    [0x45] = {"fstore_2", BC_FORM_NONE, 0},
    [0x46] = {"fstore_3", BC_FORM_NONE, 0},
    [0x47] = {"dstore_0", BC_FORM_NONE, 0},
    [0x48] = {"dstore_1", BC_FORM_NONE, 0},
    [0x49] = {"dstore_2", BC_FORM_NONE, 0},
    [0x4a] = {"dstore_3", BC_FORM_NONE, 0},
    [0x4b] = {"astore_0", BC_FORM_NONE, 0},
    [0x4c] = {"astore_1", BC_FORM_NONE, 0},
    [0x4d] = {"astore_2", BC_FORM_NONE, 0},
    [0x4e] = {"astore_3", BC_FORM_NONE, 0},
    [0x4f] = {"iastore", BC_FORM_NONE, 0},
    [0x50] = {"lastore", BC_FORM_NONE, 0},
    [0x51] = {"fastore", BC_FORM_NONE, 0},
    [0x52] = {"dastore", BC_FORM_NONE, 0},
    [0x53] = {"aastore", BC_FORM_NONE, 0},
    [0x54] = {"bastore", BC_FORM_NONE, 0},
    [0x55] = {"castore", BC_FORM_NONE, 0},
    [0x56] = {"sastore", BC_FORM_NONE, 0},
    [0x57] = {"pop", BC_FORM_NONE, 0},
    [0x58] = {"pop2", BC_FORM_NONE, 0},
    [0x59] = {"dup", BC_FORM_NONE, 0},
    [0x5a] = {"dup_x1", BC_FORM_NONE, 0},
    [0x5b] = {"dup_x2", BC_FORM_NONE, 0},
    [0x5c] = {"dup2", BC_FORM_NONE, 0},
    [0x5d] = {"dup2_x1", BC_FORM_NONE, 0},
    [0x5e] = {"dup2_x2", BC_FORM_NONE, 0},
    [0x5f] = {"swap", BC_FORM_NONE, 0},
    [0x60] = {"iadd", BC_FORM_NONE, 0},
    [0x61] = {"ladd", BC_FORM_NONE, 0},
    [0x62] = {"fadd", BC_FORM_NONE, 0},
    [0x63] = {"dadd", BC_FORM_NONE, 0},
    [0x64] = {"isub", BC_FORM_NONE, 0},
    [0x65] = {"lsub", BC_FORM_NONE, 0},
    [0x66] = {"fsub", BC_FORM_NONE, 0},
    [0x67] = {"dsub", BC_FORM_NONE, 0},
    [0x68] = {"imul", BC_FORM_NONE, 0},
    [0x69] = {"lmul", BC_FORM_NONE, 0},
    [0x6a] = {"fmul", BC_FORM_NONE, 0},
    [0x6b] = {"dmul", BC_FORM_NONE, 0},
    [0x6c] = {"idiv", BC_FORM_NONE, 0},
    [0x6d] = {"ldiv", BC_FORM_NONE, 0},
    [0x6e] = {"fdiv", BC_FORM_NONE, 0},
    [0x6f] = {"ddiv", BC_FORM_NONE, 0},
    [0x70] = {"irem", BC_FORM_NONE, 0},
    [0x71] = {"lrem", BC_FORM_NONE, 0},
    [0x72] = {"frem", BC_FORM_NONE, 0},
    [0x73] = {"drem", BC_FORM_NONE, 0},
    [0x74] = {"ineg", BC_FORM_NONE, 0},
    [0x75] = {"lneg", BC_FORM_NONE, 0},
    [0x76] = {"fneg", BC_FORM_NONE, 0},
    [0x77] = {"dneg", BC_FORM_NONE, 0},
    [0x78] = {"ishl", BC_FORM_NONE, 0},
    [0x79] = {"lshl", BC_FORM_NONE, 0},
    [0x7a] = {"ishr", BC_FORM_NONE, 0},
    [0x7b] = {"lshr", BC_FORM_NONE, 0},
    [0x7c] = {"iushr", BC_FORM_NONE, 0},
    [0x7d] = {"lushr", BC_FORM_NONE, 0},
    [0x7e] = {"iand", BC_FORM_NONE, 0},
    [0x7f] = {"land", BC_FORM_NONE, 0},
    [0x80] = {"ior", BC_FORM_NONE, 0},
    [0x81] = {"lor", BC_FORM_NONE, 0},
    [0x82] = {"ixor", BC_FORM_NONE, 0},
    [0x83] = {"lxor", BC_FORM_NONE, 0},
    [0x84] = {"iinc", BC_FORM_IINC, 0},
    [0x85] = {"i2l", BC_FORM_NONE, 0},
    [0x86] = {"i2f", BC_FORM_NONE, 0},
    [0x87] = {"i2d", BC_FORM_NONE, 0},
    [0x88] = {"l2i", BC_FORM_NONE, 0},
    [0x89] = {"l2f", BC_FORM_NONE, 0},
    [0x8a] = {"l2d", BC_FORM_NONE, 0},
    [0x8b] = {"f2i", BC_FORM_NONE, 0},
    [0x8c] = {"f2l", BC_FORM_NONE, 0},
    [0x8d] = {"f2d", BC_FORM_NONE, 0},
    [0x8e] = {"d2i", BC_FORM_NONE, 0},
    [0x8f] = {"d2l", BC_FORM_NONE, 0},
    [0x90] = {"d2f", BC_FORM_NONE, 0},
    [0x91] = {"i2b", BC_FORM_NONE, 0},
    [0x92] = {"i2c", BC_FORM_NONE, 0},
    [0x93] = {"i2s", BC_FORM_NONE, 0},
    [0x94] = {"lcmp", BC_FORM_NONE, 0},
    [0x95] = {"fcmpl", BC_FORM_NONE, 0},
    [0x96] = {"fcmpg", BC_FORM_NONE, 0},
    [0x97] = {"dcmpl", BC_FORM_NONE, 0},
    [0x98] = {"dcmpg", BC_FORM_NONE, 0},
    [0x99] = {"ifeq", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0x9a] = {"ifne", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0x9b] = {"iflt", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0x9c] = {"ifge", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0x9d] = {"ifgt", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0x9e] = {"ifle", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0x9f] = {"if_icmpeq", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa0] = {"if_icmpne", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa1] = {"if_icmplt", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa2] = {"if_icmpge", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa3] = {"if_icmpgt", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa4] = {"if_icmple", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa5] = {"if_acmpeq", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa6] = {"if_acmpne", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xa7] = {"goto", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_ENDS},
    [0xa8] = {"jsr", BC_FORM_BRANCH, BC_F_BRANCH},
    [0xa9] = {"ret", BC_FORM_LOCAL, BC_F_ENDS},
    [0xaa] = {"tableswitch", BC_FORM_TABLESWITCH, BC_F_BRANCH | BC_F_ENDS},
    [0xab] = {"lookupswitch", BC_FORM_LOOKUPSWITCH, BC_F_BRANCH | BC_F_ENDS},
    [0xac] = {"ireturn", BC_FORM_NONE, BC_F_RETURN | BC_F_ENDS},
    [0xad] = {"lreturn", BC_FORM_NONE, BC_F_RETURN | BC_F_ENDS},
    [0xae] = {"freturn", BC_FORM_NONE, BC_F_RETURN | BC_F_ENDS},
    [0xaf] = {"dreturn", BC_FORM_NONE, BC_F_RETURN | BC_F_ENDS},
    [0xb0] = {"areturn", BC_FORM_NONE, BC_F_RETURN | BC_F_ENDS},
    [0xb1] = {"return", BC_FORM_NONE, BC_F_RETURN | BC_F_ENDS},
    [0xb2] = {"getstatic", BC_FORM_CP, 0},
    [0xb3] = {"putstatic", BC_FORM_CP, 0},
    [0xb4] = {"getfield", BC_FORM_CP, 0},
    [0xb5] = {"putfield", BC_FORM_CP, 0},
    [0xb6] = {"invokevirtual", BC_FORM_CP, BC_F_INVOKE},
    [0xb7] = {"invokespecial", BC_FORM_CP, BC_F_INVOKE},
    [0xb8] = {"invokestatic", BC_FORM_CP, BC_F_INVOKE},
    [0xb9] = {"invokeinterface", BC_FORM_INVOKEINTERFACE, BC_F_INVOKE},
    [0xba] = {"invokedynamic", BC_FORM_INVOKEDYNAMIC, BC_F_INVOKE},
    [0xbb] = {"new", BC_FORM_CP, 0},
    [0xbc] = {"newarray", BC_FORM_BYTE, 0},
    [0xbd] = {"anewarray", BC_FORM_CP, 0},
    [0xbe] = {"arraylength", BC_FORM_NONE, 0},
    [0xbf] = {"athrow", BC_FORM_NONE, BC_F_ENDS},
    [0xc0] = {"checkcast", BC_FORM_CP, 0},
    [0xc1] = {"instanceof", BC_FORM_CP, 0},
    [0xc2] = {"monitorenter", BC_FORM_NONE, 0},
    [0xc3] = {"monitorexit", BC_FORM_NONE, 0},
    [0xc4] = {"wide", BC_FORM_WIDE, 0},
    [0xc5] = {"multianewarray", BC_FORM_MULTIANEWARRAY, 0},
    [0xc6] = {"ifnull", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xc7] = {"ifnonnull", BC_FORM_BRANCH, BC_F_BRANCH | BC_F_COND},
    [0xc8] = {"goto_w", BC_FORM_BRANCH_W, BC_F_BRANCH | BC_F_ENDS},
    [0xc9] = {"jsr_w", BC_FORM_BRANCH_W, BC_F_BRANCH},
};

const char *bc_name(uint8_t op)
{
    return bc_table[op].name ? bc_table[op].name : "?";
}

uint8_t bc_flags(uint8_t op)
{
    return bc_table[op].flags;
}

/* Checks that n bytes from at fit; at and n are bounded by the caller. */
static int fits(uint32_t len, uint64_t at, uint64_t n)
{
    return at <= len && n <= len - at;
}

static int decode_switch(const uint8_t *code, uint32_t len, bc_insn *in, mct_err *err)
{
    uint64_t p = ((uint64_t)in->pc + 4) & ~(uint64_t)3; /* after the padding */
    uint64_t n, entry;

    if (!fits(len, p, in->op == BC_TABLESWITCH ? 12 : 8))
        return mct_err_set(err, MCT_E_CLASSFILE, "%s at pc %u runs past the end of the code",
                           bc_name(in->op), in->pc);
    in->dflt = (int64_t)in->pc + (int32_t)buf_get_u4(code + p);
    if (in->op == BC_TABLESWITCH) {
        in->low = (int32_t)buf_get_u4(code + p + 4);
        in->high = (int32_t)buf_get_u4(code + p + 8);
        if (in->low > in->high)
            return mct_err_set(err, MCT_E_CLASSFILE, "tableswitch at pc %u has low %d > high %d",
                               in->pc, in->low, in->high);
        n = (uint64_t)((int64_t)in->high - in->low + 1);
        p += 12;
        entry = 4;
    } else {
        int32_t npairs = (int32_t)buf_get_u4(code + p + 4);

        if (npairs < 0)
            return mct_err_set(err, MCT_E_CLASSFILE, "lookupswitch at pc %u has %d pairs",
                               in->pc, npairs);
        n = (uint64_t)npairs;
        p += 8;
        entry = 8;
    }
    if (!fits(len, p, n * entry))
        return mct_err_set(err, MCT_E_CLASSFILE, "%s at pc %u runs past the end of the code",
                           bc_name(in->op), in->pc);
    in->ntargets = (uint32_t)n;
    in->table = (uint32_t)p;
    in->len = (uint32_t)(p + n * entry - in->pc);
    return 0;
}

/* Decodes the instruction modified by a wide prefix at in->pc. */
static int decode_wide(const uint8_t *code, uint32_t len, bc_insn *in, mct_err *err)
{
    uint32_t pc = in->pc;

    if (!fits(len, pc, 2))
        return mct_err_set(err, MCT_E_CLASSFILE, "wide at pc %u runs past the end of the code", pc);
    in->op = code[pc + 1];
    in->wide = 1;
    in->form = bc_table[in->op].form;
    in->flags = bc_table[in->op].flags;
    if (in->form == BC_FORM_LOCAL) {
        in->len = 4;
    } else if (in->form == BC_FORM_IINC) {
        in->len = 6;
    } else {
        return mct_err_set(err, MCT_E_CLASSFILE, "wide at pc %u modifies %s", pc, bc_name(in->op));
    }
    if (!fits(len, pc, in->len))
        return mct_err_set(err, MCT_E_CLASSFILE, "wide %s at pc %u runs past the end of the code",
                           bc_name(in->op), pc);
    in->index = buf_get_u2(code + pc + 2);
    if (in->form == BC_FORM_IINC)
        in->value = (int16_t)buf_get_u2(code + pc + 4);
    return 0;
}

int bc_decode(const uint8_t *code, uint32_t len, uint32_t pc, bc_insn *in, mct_err *err)
{
    static const uint8_t form_len[] = {
        [BC_FORM_NONE] = 1, [BC_FORM_BYTE] = 2, [BC_FORM_LDC] = 2, [BC_FORM_LOCAL] = 2,
        [BC_FORM_IINC] = 3, [BC_FORM_SHORT] = 3, [BC_FORM_CP] = 3,
        [BC_FORM_INVOKEINTERFACE] = 5, [BC_FORM_INVOKEDYNAMIC] = 5,
        [BC_FORM_MULTIANEWARRAY] = 4, [BC_FORM_BRANCH] = 3, [BC_FORM_BRANCH_W] = 5,
    };
    const uint8_t *p;

    *in = (bc_insn){.pc = pc};
    if (pc >= len)
        return mct_err_set(err, MCT_E_CLASSFILE, "pc %u is past the end of the code (%u bytes)", pc, len);
    in->op = code[pc];
    in->form = bc_table[in->op].form;
    in->flags = bc_table[in->op].flags;
    switch (in->form) {
    case BC_FORM_INVALID:
        return mct_err_set(err, MCT_E_CLASSFILE, "invalid opcode 0x%02x at pc %u", in->op, pc);
    case BC_FORM_WIDE:
        return decode_wide(code, len, in, err);
    case BC_FORM_TABLESWITCH:
    case BC_FORM_LOOKUPSWITCH:
        return decode_switch(code, len, in, err);
    default:
        break;
    }
    in->len = form_len[in->form];
    if (!fits(len, pc, in->len))
        return mct_err_set(err, MCT_E_CLASSFILE, "%s at pc %u runs past the end of the code",
                           bc_name(in->op), pc);
    p = code + pc + 1;
    switch (in->form) {
    case BC_FORM_BYTE:
        in->value = in->op == BC_BIPUSH ? (int8_t)p[0] : p[0];
        break;
    case BC_FORM_LDC:
    case BC_FORM_LOCAL:
        in->index = p[0];
        break;
    case BC_FORM_IINC:
        in->index = p[0];
        in->value = (int8_t)p[1];
        break;
    case BC_FORM_SHORT:
        in->value = (int16_t)buf_get_u2(p);
        break;
    case BC_FORM_CP:
    case BC_FORM_INVOKEDYNAMIC:
        in->index = buf_get_u2(p);
        break;
    case BC_FORM_INVOKEINTERFACE:
    case BC_FORM_MULTIANEWARRAY:
        in->index = buf_get_u2(p);
        in->value = p[2];
        break;
    case BC_FORM_BRANCH:
        in->target = (int64_t)pc + (int16_t)buf_get_u2(p);
        break;
    case BC_FORM_BRANCH_W:
        in->target = (int64_t)pc + (int32_t)buf_get_u4(p);
        break;
    default:
        break;
    }
    return 0;
}

int64_t bc_switch_target(const uint8_t *code, const bc_insn *in, uint32_t i)
{
    uint32_t entry = in->op == BC_TABLESWITCH ? 4 : 8;
    uint32_t off = in->table + i * entry + (entry == 8 ? 4 : 0);

    return (int64_t)in->pc + (int32_t)buf_get_u4(code + off);
}

int32_t bc_switch_key(const uint8_t *code, const bc_insn *in, uint32_t i)
{
    if (in->op == BC_TABLESWITCH)
        return (int32_t)((int64_t)in->low + i);
    return (int32_t)buf_get_u4(code + in->table + i * 8);
}

/* Checks that branch target t is the start of an instruction (starts marks
 * them all). */
static int check_target(const uint8_t *starts, uint32_t len, const bc_insn *in, int64_t t,
                        mct_err *err)
{
    if (t < 0 || t >= (int64_t)len || !starts[t])
        return mct_err_set(err, MCT_E_CLASSFILE, "%s at pc %u branches to %lld, not an instruction",
                           bc_name(in->op), in->pc, (long long)t);
    return 0;
}

static int check_targets(const uint8_t *code, uint32_t len, const uint8_t *starts, mct_err *err)
{
    uint32_t pc = 0, i;
    bc_insn in;

    while (pc < len) {
        if (bc_decode(code, len, pc, &in, err) < 0)
            return -1;
        if (in.form == BC_FORM_BRANCH || in.form == BC_FORM_BRANCH_W) {
            if (check_target(starts, len, &in, in.target, err) < 0)
                return -1;
        } else if (in.form == BC_FORM_TABLESWITCH || in.form == BC_FORM_LOOKUPSWITCH) {
            if (check_target(starts, len, &in, in.dflt, err) < 0)
                return -1;
            for (i = 0; i < in.ntargets; i++)
                if (check_target(starts, len, &in, bc_switch_target(code, &in, i), err) < 0)
                    return -1;
        }
        pc += in.len;
    }
    return 0;
}

int bc_scan(const uint8_t *code, uint32_t len, uint8_t *starts, mct_err *err)
{
    uint8_t local[4096];
    uint8_t *s = starts;
    uint32_t pc = 0;
    bc_insn in;
    int rc;

    if (s == NULL) {
        if (len > sizeof local)
            s = malloc(len);
        else
            s = local;
        if (s == NULL)
            return mct_err_set(err, MCT_E_NOMEM, "out of memory scanning %u bytes of code", len);
    }
    memset(s, 0, len);
    rc = 0;
    while (pc < len) {
        if (bc_decode(code, len, pc, &in, err) < 0) {
            rc = -1;
            break;
        }
        s[pc] = 1;
        pc += in.len;
    }
    if (rc == 0)
        rc = check_targets(code, len, s, err);
    if (s != starts && s != local)
        free(s);
    return rc;
}
