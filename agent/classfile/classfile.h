/* classfile.h — a parsed, read-only view of a JVM class file (JVMS ch. 4).
 *
 * cf_parse checks the structure of the whole file (every constant pool tag of
 * versions 45..69, cross-references between entries, attribute bounds, the
 * Code attribute and its exception table, BootstrapMethods) and builds a view
 * that points into the caller's bytes: they must outlive the view. Strings in
 * the view (constant pool Utf8 entries and the names below) are NUL-terminated
 * copies owned by the view. Instructions are decoded with bytecode.h. Nothing
 * here allocates after cf_parse returns; cf_free releases everything. */
#ifndef MCT_CLASSFILE_H
#define MCT_CLASSFILE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

#define CF_MIN_MAJOR 45
#define CF_MAX_MAJOR 69 /* Java 25 */

enum cf_tag {
    CF_UTF8 = 1, CF_INTEGER = 3, CF_FLOAT = 4, CF_LONG = 5, CF_DOUBLE = 6,
    CF_CLASS = 7, CF_STRING = 8, CF_FIELDREF = 9, CF_METHODREF = 10,
    CF_INTERFACE_METHODREF = 11, CF_NAME_AND_TYPE = 12, CF_METHOD_HANDLE = 15,
    CF_METHOD_TYPE = 16, CF_DYNAMIC = 17, CF_INVOKE_DYNAMIC = 18,
    CF_MODULE = 19, CF_PACKAGE = 20
};

/* MethodHandle reference kinds (JVMS §5.4.3.5). */
enum cf_ref_kind {
    CF_REF_GET_FIELD = 1, CF_REF_GET_STATIC, CF_REF_PUT_FIELD, CF_REF_PUT_STATIC,
    CF_REF_INVOKE_VIRTUAL, CF_REF_INVOKE_STATIC, CF_REF_INVOKE_SPECIAL,
    CF_REF_NEW_INVOKE_SPECIAL, CF_REF_INVOKE_INTERFACE
};

enum cf_access {
    CF_ACC_PUBLIC = 0x0001, CF_ACC_PRIVATE = 0x0002, CF_ACC_PROTECTED = 0x0004,
    CF_ACC_STATIC = 0x0008, CF_ACC_FINAL = 0x0010, CF_ACC_SYNCHRONIZED = 0x0020,
    CF_ACC_SUPER = 0x0020, CF_ACC_BRIDGE = 0x0040, CF_ACC_VARARGS = 0x0080,
    CF_ACC_NATIVE = 0x0100, CF_ACC_INTERFACE = 0x0200, CF_ACC_ABSTRACT = 0x0400,
    CF_ACC_STRICT = 0x0800, CF_ACC_SYNTHETIC = 0x1000, CF_ACC_ANNOTATION = 0x2000,
    CF_ACC_ENUM = 0x4000, CF_ACC_MODULE = 0x8000
};

/* One constant pool slot. Slot 0 and the slot after a Long or Double have
 * tag 0. The meaning of a and b depends on the tag:
 *   Class, String, MethodType, Module, Package: a = Utf8 index
 *   Fieldref, Methodref, InterfaceMethodref:   a = Class index, b = NameAndType index
 *   NameAndType:                                a = name Utf8, b = descriptor Utf8
 *   MethodHandle:                               kind = reference kind, a = reference index
 *   Dynamic, InvokeDynamic:                     a = BootstrapMethods index, b = NameAndType */
typedef struct cf_cp {
    uint8_t tag;
    uint8_t kind;
    uint16_t a;
    uint16_t b;
    uint32_t off;      /* offset of the tag byte in the class file */
    uint32_t len;      /* Utf8: length in bytes */
    uint64_t value;    /* Integer, Float: the 4 bytes; Long, Double: the 8 bytes */
    const char *utf8;  /* Utf8: NUL-terminated copy (modified UTF-8 has no NUL) */
} cf_cp;

/* An attribute; its info is at data + off + 6, len bytes. */
typedef struct cf_attr {
    const char *name;  /* the Utf8 of name_index */
    uint16_t name_index;
    uint32_t off;      /* offset of attribute_name_index */
    uint32_t len;      /* attribute_length */
} cf_attr;

typedef struct cf_handler {
    uint16_t start, end, handler, catch_type; /* catch_type 0 = any */
} cf_handler;

/* A decoded Code attribute. */
typedef struct cf_code {
    const cf_attr *attr;      /* the Code attribute itself */
    uint16_t max_stack, max_locals;
    uint32_t code_len;        /* 1..65535 */
    const uint8_t *code;      /* points into the class file */
    uint32_t code_off;        /* offset of code[0] in the class file */
    uint16_t n_handlers;
    const cf_handler *handlers;
    uint16_t n_attrs;
    const cf_attr *attrs;     /* StackMapTable, LineNumberTable, ... */
} cf_code;

/* A field or a method. */
typedef struct cf_member {
    uint16_t access;
    uint16_t name_index, desc_index;
    const char *name, *desc;
    uint32_t off, end;        /* the member_info spans [off, end) of the file */
    uint16_t n_attrs;
    const cf_attr *attrs;
    const cf_code *code;      /* methods with a Code attribute, else NULL */
} cf_member;

/* One BootstrapMethods entry. */
typedef struct cf_bootstrap {
    uint16_t method;          /* MethodHandle index */
    uint16_t n_args;
    const uint16_t *args;     /* loadable constant indexes */
} cf_bootstrap;

typedef struct cf_class {
    const uint8_t *data;      /* the caller's bytes */
    size_t len;
    uint16_t minor, major;
    uint16_t cp_count;        /* constant_pool_count: slots 1..cp_count-1 */
    const cf_cp *cp;
    uint32_t cp_end;          /* offset just past the constant pool (access_flags) */
    uint16_t access;
    uint16_t this_class, super_class;
    const char *name;         /* internal name, "com/shop/Cart" */
    const char *super_name;   /* NULL for java/lang/Object and module-info */
    uint16_t n_interfaces;
    const uint16_t *interfaces; /* Class indexes */
    uint16_t n_fields;
    const cf_member *fields;
    uint32_t methods_off;     /* offset of methods_count */
    uint16_t n_methods;
    const cf_member *methods;
    uint32_t attrs_off;       /* offset of the class attributes_count */
    uint16_t n_attrs;
    const cf_attr *attrs;
    uint16_t n_bootstrap;
    const cf_bootstrap *bootstrap;
} cf_class;

/* Parses len bytes; returns a view the caller frees with cf_free, or NULL
 * with err set (MCT_E_CLASSFILE: malformed, with the offset; MCT_E_UNSUPPORTED:
 * a version outside 45..69; MCT_E_NOMEM). data must outlive the view. */
cf_class *cf_parse(const uint8_t *data, size_t len, mct_err *err);

/* Frees a view (NULL is fine). The caller's bytes are untouched. */
void cf_free(cf_class *c);

/* The Utf8 at idx, or NULL if idx is not a Utf8 slot. */
const char *cf_utf8(const cf_class *c, uint16_t idx);

/* The internal name of the Class at idx, or NULL if idx is not a Class. */
const char *cf_class_name(const cf_class *c, uint16_t idx);

/* A resolved Fieldref, Methodref or InterfaceMethodref. */
typedef struct cf_ref {
    uint8_t tag;
    const char *owner;        /* internal name, or an array descriptor "[I" */
    const char *name;
    const char *desc;
} cf_ref;

/* Resolves the member reference at idx; returns 0, or -1 if idx is not one. */
int cf_member_ref(const cf_class *c, uint16_t idx, cf_ref *out);

/* Resolves the MethodHandle at idx: its kind and the member it refers to. */
int cf_method_handle(const cf_class *c, uint16_t idx, uint8_t *kind, cf_ref *out);

/* For the InvokeDynamic at idx: its bootstrap entry and call-site name and
 * descriptor; returns 0, or -1 if idx is not an InvokeDynamic. */
int cf_invoke_dynamic(const cf_class *c, uint16_t idx, const cf_bootstrap **bsm,
                      const char **name, const char **desc);

/* The first attribute named name among attrs, or NULL. */
const cf_attr *cf_find_attr(const cf_attr *attrs, uint16_t n, const char *name);

/* The info bytes of an attribute. */
static inline const uint8_t *cf_attr_info(const cf_class *c, const cf_attr *a)
{
    return c->data + a->off + 6;
}

/* The method named name with descriptor desc, or NULL. */
const cf_member *cf_find_method(const cf_class *c, const char *name, const char *desc);

/* Method descriptors. cf_desc_check validates the syntax of a method
 * descriptor; cf_desc_arg_slots counts the local slots of its arguments
 * (long and double take two; not counting `this`); cf_desc_return points at
 * its return type. Both of the latter expect a checked descriptor. */
int cf_desc_check(const char *desc);
int cf_desc_arg_slots(const char *desc);
const char *cf_desc_return(const char *desc);

/* Checks one field descriptor starting at *p and advances *p past it;
 * returns 0 or -1. */
int cf_field_desc_skip(const char **p);

#endif
