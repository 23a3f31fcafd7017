/* classasm.h — a small class file assembler for tests: a constant pool with
 * the usual entries, methods with code, exception tables and raw Code
 * attributes, any class file version. Appends never fail loudly (buf.h);
 * ca_finish reports. */
#ifndef MCT_CLASSASM_H
#define MCT_CLASSASM_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "classfile.h"

typedef struct ca_class {
    mct_buf cp;
    uint16_t count;       /* next constant pool index */
    mct_buf methods;
    uint16_t n_methods;
    uint16_t major, minor;
    uint16_t access;
    uint16_t this_class, super_class;
} ca_class;

/* A method body. attrs holds n_attrs complete attributes (see ca_attr). */
typedef struct ca_code {
    const uint8_t *code;
    uint32_t len;
    uint16_t max_stack, max_locals;
    const cf_handler *handlers;
    uint16_t n_handlers;
    const uint8_t *attrs;
    size_t attrs_len;
    uint16_t n_attrs;
} ca_code;

/* Starts class name (internal) extending super_name, of version major. */
void ca_init(ca_class *a, const char *name, const char *super_name, uint16_t major);

uint16_t ca_utf8(ca_class *a, const char *s);
uint16_t ca_class_ref(ca_class *a, const char *name);
uint16_t ca_string(ca_class *a, const char *s);
uint16_t ca_integer(ca_class *a, int32_t v);
uint16_t ca_nat(ca_class *a, const char *name, const char *desc);
uint16_t ca_methodref(ca_class *a, const char *owner, const char *name, const char *desc);
uint16_t ca_fieldref(ca_class *a, const char *owner, const char *name, const char *desc);

/* Adds a method; code NULL for abstract and native ones. */
void ca_method(ca_class *a, uint16_t access, const char *name, const char *desc, const ca_code *code);

/* Appends an attribute (name, info) to out, for ca_code.attrs. */
void ca_attr(ca_class *a, mct_buf *out, const char *name, const uint8_t *info, size_t len);

/* Returns the class file (caller frees with free()) and frees a's buffers;
 * NULL when out of memory. */
uint8_t *ca_finish(ca_class *a, size_t *len);

#endif
