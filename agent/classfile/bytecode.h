/* bytecode.h — the JVM instruction set (JVMS §6.5): opcode names, lengths and
 * bounds-checked decoding of one instruction or of a whole method's code.
 * Decoding never reads outside [code, code + len). */
#ifndef MCT_BYTECODE_H
#define MCT_BYTECODE_H

#include <stdint.h>

#include "err.h"

enum bc_op {
    BC_NOP = 0x00, BC_ACONST_NULL = 0x01, BC_ICONST_0 = 0x03, BC_ICONST_5 = 0x08,
    BC_BIPUSH = 0x10, BC_SIPUSH = 0x11, BC_LDC = 0x12, BC_LDC_W = 0x13, BC_LDC2_W = 0x14,
    BC_ILOAD = 0x15, BC_ALOAD = 0x19, BC_ILOAD_0 = 0x1a, BC_ALOAD_0 = 0x2a,
    BC_ISTORE = 0x36, BC_ASTORE = 0x3a, BC_ISTORE_0 = 0x3b,
    BC_POP = 0x57, BC_DUP = 0x59, BC_SWAP = 0x5f,
    BC_IINC = 0x84,
    BC_IFEQ = 0x99, BC_IFNE = 0x9a, BC_IFLT = 0x9b, BC_IFGE = 0x9c, BC_IFGT = 0x9d, BC_IFLE = 0x9e,
    BC_IF_ICMPEQ = 0x9f, BC_IF_ICMPNE = 0xa0, BC_IF_ICMPLT = 0xa1, BC_IF_ICMPGE = 0xa2,
    BC_IF_ICMPGT = 0xa3, BC_IF_ICMPLE = 0xa4, BC_IF_ACMPEQ = 0xa5, BC_IF_ACMPNE = 0xa6,
    BC_GOTO = 0xa7, BC_JSR = 0xa8, BC_RET = 0xa9,
    BC_TABLESWITCH = 0xaa, BC_LOOKUPSWITCH = 0xab,
    BC_IRETURN = 0xac, BC_LRETURN = 0xad, BC_FRETURN = 0xae, BC_DRETURN = 0xaf,
    BC_ARETURN = 0xb0, BC_RETURN = 0xb1,
    BC_GETSTATIC = 0xb2, BC_PUTSTATIC = 0xb3, BC_GETFIELD = 0xb4, BC_PUTFIELD = 0xb5,
    BC_INVOKEVIRTUAL = 0xb6, BC_INVOKESPECIAL = 0xb7, BC_INVOKESTATIC = 0xb8,
    BC_INVOKEINTERFACE = 0xb9, BC_INVOKEDYNAMIC = 0xba,
    BC_NEW = 0xbb, BC_NEWARRAY = 0xbc, BC_ANEWARRAY = 0xbd, BC_ARRAYLENGTH = 0xbe,
    BC_ATHROW = 0xbf, BC_CHECKCAST = 0xc0, BC_INSTANCEOF = 0xc1,
    BC_MONITORENTER = 0xc2, BC_MONITOREXIT = 0xc3, BC_WIDE = 0xc4,
    BC_MULTIANEWARRAY = 0xc5, BC_IFNULL = 0xc6, BC_IFNONNULL = 0xc7,
    BC_GOTO_W = 0xc8, BC_JSR_W = 0xc9
};

/* What follows the opcode. */
enum bc_form {
    BC_FORM_INVALID = 0,
    BC_FORM_NONE,        /* no operands */
    BC_FORM_BYTE,        /* bipush: s1 value; newarray: u1 atype */
    BC_FORM_LDC,         /* u1 constant pool index */
    BC_FORM_LOCAL,       /* u1 local index (u2 after wide) */
    BC_FORM_IINC,        /* u1 local, s1 delta (u2, s2 after wide) */
    BC_FORM_SHORT,       /* sipush: s2 value */
    BC_FORM_CP,          /* u2 constant pool index */
    BC_FORM_INVOKEINTERFACE, /* u2 index, u1 count, u1 zero */
    BC_FORM_INVOKEDYNAMIC,   /* u2 index, u2 zero */
    BC_FORM_MULTIANEWARRAY,  /* u2 index, u1 dimensions */
    BC_FORM_BRANCH,      /* s2 offset */
    BC_FORM_BRANCH_W,    /* s4 offset */
    BC_FORM_TABLESWITCH,
    BC_FORM_LOOKUPSWITCH,
    BC_FORM_WIDE         /* prefix; decoded together with what it modifies */
};

/* Opcode properties. */
enum bc_flag {
    BC_F_RETURN = 1 << 0,  /* ireturn .. return */
    BC_F_INVOKE = 1 << 1,  /* invokevirtual .. invokedynamic */
    BC_F_BRANCH = 1 << 2,  /* has branch target(s): ifs, goto(_w), jsr(_w), switches */
    BC_F_COND = 1 << 3,    /* conditional branch (falls through when not taken) */
    BC_F_ENDS = 1 << 4     /* never falls through: goto(_w), returns, athrow, switches, ret */
};

/* One decoded instruction. */
typedef struct bc_insn {
    uint32_t pc;       /* offset of the opcode (of the wide prefix, if any) */
    uint32_t len;      /* length in bytes, including wide and switch padding */
    uint8_t op;        /* the opcode (after a wide prefix: the modified one) */
    uint8_t wide;      /* 1 when prefixed by wide */
    uint8_t form;      /* enum bc_form of op */
    uint8_t flags;     /* enum bc_flag of op */
    uint16_t index;    /* constant pool index (LDC, CP, invoke forms) or local index */
    int32_t value;     /* bipush/sipush value, iinc delta, newarray type,
                          invokeinterface count, multianewarray dimensions */
    int64_t target;    /* branch target, absolute (may be out of the code: see bc_scan) */
    /* tableswitch/lookupswitch */
    int64_t dflt;      /* default target, absolute */
    int32_t low, high; /* tableswitch bounds */
    uint32_t ntargets; /* number of non-default targets */
    uint32_t table;    /* offset of the first jump table entry (after default/low/high or npairs) */
} bc_insn;

/* Decodes the instruction at pc; returns 0, or -1 with err set when the
 * opcode is unknown or the instruction runs past len. */
int bc_decode(const uint8_t *code, uint32_t len, uint32_t pc, bc_insn *in, mct_err *err);

/* The i-th (0-based, < ntargets) non-default target of a decoded switch. */
int64_t bc_switch_target(const uint8_t *code, const bc_insn *in, uint32_t i);

/* The i-th match key of a lookupswitch (low + i for a tableswitch). */
int32_t bc_switch_key(const uint8_t *code, const bc_insn *in, uint32_t i);

/* Decodes a whole method: every instruction must decode, and every branch
 * and switch target must be the start of an instruction. If starts is not
 * NULL (len bytes), starts[pc] is set to 1 for each instruction start and 0
 * elsewhere. Returns 0 or -1 with err set (the message names the pc). */
int bc_scan(const uint8_t *code, uint32_t len, uint8_t *starts, mct_err *err);

/* The mnemonic of an opcode ("invokevirtual"), or "?" if invalid. */
const char *bc_name(uint8_t op);

/* The flags of an opcode (enum bc_flag; 0 for unknown ones). */
uint8_t bc_flags(uint8_t op);

#endif
