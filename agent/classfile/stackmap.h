/* stackmap.h — verification types and StackMapTable frames (JVMS §4.7.4,
 * §4.10.1): decoding a method's table into full frames, encoding frames
 * back compactly, and a simulator that steps one instruction at a time from
 * a frame the way the type-checking verifier does, so that a writer can
 * compute the frame at a new branch target.
 *
 * Frames hold locals and stack in slots: a long or double takes two, the
 * second being SM_LONG2 / SM_DOUBLE2 (never encoded). Object types carry an
 * interned name (an internal class name or an array descriptor), so equal
 * types compare equal as values; Uninitialized(pc) carries the pc of its
 * `new` in the code the frames describe. */
#ifndef MCT_STACKMAP_H
#define MCT_STACKMAP_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "bytecode.h"
#include "classfile.h"
#include "cpool.h"
#include "err.h"

/* The verification_type_info tags, plus the second slots of category 2. */
enum sm_tag {
    SM_TOP = 0, SM_INTEGER = 1, SM_FLOAT = 2, SM_DOUBLE = 3, SM_LONG = 4, SM_NULL = 5,
    SM_UNINIT_THIS = 6, SM_OBJECT = 7, SM_UNINIT = 8,
    SM_LONG2 = 9, SM_DOUBLE2 = 10
};

typedef struct sm_type {
    uint8_t tag;   /* enum sm_tag */
    uint32_t v;    /* SM_OBJECT: name id (sm_intern); SM_UNINIT: pc of the `new` */
} sm_type;

/* A frame, or the simulator's current state. */
typedef struct sm_frame {
    uint32_t pc;
    uint16_t max_locals, max_stack;  /* capacity of locals and stack */
    uint16_t nlocals;                /* slots in use; the others are Top */
    uint16_t nstack;                 /* slots on the stack */
    uint8_t this_uninit;             /* flagThisUninit */
    sm_type *locals;                 /* max_locals slots */
    sm_type *stack;                  /* max_stack slots */
} sm_frame;

/* A growable list of frames of one method, each owning its arrays. */
typedef struct sm_list {
    uint16_t max_locals, max_stack;
    sm_frame *f;
    size_t n, cap;
} sm_list;

/* The per-class context: the class and the interned names. */
typedef struct sm_ctx sm_ctx;

/* Creates a context over c (borrowed, must outlive it); NULL with err set
 * on failure. Free with sm_free. */
sm_ctx *sm_new(const cf_class *c, mct_err *err);
void sm_free(sm_ctx *x);

/* Interns len bytes of a name; returns 0 and sets *id, or -1 (out of memory). */
int sm_intern(sm_ctx *x, const char *s, size_t len, uint32_t *id, mct_err *err);

/* The name of an interned id (NUL-terminated); borrowed, valid until the
 * next sm_intern on x. */
const char *sm_name(const sm_ctx *x, uint32_t id, size_t *len);

void sm_list_init(sm_list *l, uint16_t max_locals, uint16_t max_stack);
void sm_list_free(sm_list *l);

/* Appends a frame at pc with every slot Top, no stack; returns it (valid
 * until the next append) or NULL when out of memory. */
sm_frame *sm_list_add(sm_list *l, uint32_t pc);

/* Copies src's content (not its capacity) into dst; the capacities must
 * be equal. */
void sm_copy(sm_frame *dst, const sm_frame *src);

/* Sets f (of m's capacities) to the implicit frame at pc 0 of method m:
 * `this` (UninitializedThis in a constructor) and the arguments. */
int sm_initial(sm_ctx *x, const cf_member *m, sm_frame *f, mct_err *err);

/* Decodes the StackMapTable of m (smt, or NULL for none) into out (of m's
 * capacities), after out's frame 0 which is set to the initial frame; the
 * other frames carry their pcs. Checks the structure: entry kinds, lengths,
 * capacities, Class constants; offsets past code_len fail. */
int sm_decode(sm_ctx *x, const cf_member *m, const cf_attr *smt, sm_list *out, mct_err *err);

/* Maps the pc of a `new` in the old code to its pc in the new one. */
typedef uint32_t (*sm_pc_map)(void *ctx, uint32_t old_pc);

/* Appends a StackMapTable's info (number_of_entries, then the entries) for
 * frames[0..n), whose pcs must strictly increase, each encoded relative to
 * the one before and the first to init, in the smallest form. Object types
 * become Class constants of cp, Uninitialized(pc) become map(ctx, pc). */
int sm_encode(sm_ctx *x, const sm_frame *init, const sm_frame *const *frames, size_t n,
              cpool *cp, sm_pc_map map, void *map_ctx, mct_buf *b, mct_err *err);

/* Executes the decoded instruction in of code[0..code_len) on st like the
 * verifier. Returns 1 when it was the invokespecial <init> that initialized
 * UninitializedThis, 0 for any other instruction, -1 with err set when the
 * instruction does not type-check in a way the simulator follows (jsr/ret,
 * a stack or local out of range, a wrong category, ...). After an
 * instruction that ends control flow st is meaningless. */
int sm_step(sm_ctx *x, sm_frame *st, const uint8_t *code, uint32_t code_len, const bc_insn *in,
            mct_err *err);

/* Whether st holds UninitializedThis in any local (what sets the flag of
 * a frame read from a StackMapTable). */
int sm_has_uninit_this(const sm_frame *st);

#endif
