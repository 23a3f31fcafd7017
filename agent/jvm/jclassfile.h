/* jclassfile.h — reconstitutes a class file for the planner from JVMTI,
 * without retransforming the class: planning must leave the JVM as it was
 * (a retransformation, even one that changes nothing, makes compiled code
 * not entrant and keeps running frames of the class interpreted).
 *
 * What the file holds: the class's version (GetClassVersionNumbers), its
 * constant pool as HotSpot reconstitutes it (GetConstantPool: the indices
 * GetBytecodes' code uses), its modifiers, this class, superclass and
 * interfaces (Class entries found in the pool by name, appended when
 * missing), and every method of GetClassMethods with its modifiers and,
 * when it has code, a Code attribute: max_locals and the code of
 * GetBytecodes. The BootstrapMethods attribute, which JVMTI does not
 * expose, comes from the class file read now (vm_read_class_file: the
 * resource its loader finds for one of the JDK's loaders, the file at its
 * code source for any other, whose Java code could block or do anything)
 * when that file's constant pool is the start of the JVM's; when it is not
 * (another agent transformed the class as it loaded, the file changed), or
 * no file could be read (no code source, a jar inside a jar), the pool's
 * Dynamic and InvokeDynamic entries become Fieldref and Methodref entries
 * of the class itself: the planner then follows no lambda of that class,
 * and jcf_build says why.
 *
 * What it lacks: fields, max_stack (0), exception tables, StackMapTable
 * and every other attribute. The planner reads none of them, only the call
 * sites and the pool entries they name; the plan keeps names only, never
 * offsets or pool indices, so nothing of this file reaches the rewriter,
 * which is never given it: the rewriter works on what the ClassFileLoadHook
 * hands over. */
#ifndef MCT_JCLASSFILE_H
#define MCT_JCLASSFILE_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Builds the class file of the loaded, prepared class k, whose internal
 * name is name (jni is the caller's; the JDK's Java code may run to read
 * the class's resource, see vm_read_class_file). *data receives malloc'd
 * bytes the caller frees, *len their length, *unread NULL, or when the
 * class has lambdas or method references whose bootstrap methods could not
 * be read, why (a malloc'd sentence the caller frees). 0, or -1 with err
 * set: MCT_E_JVMTI naming the call and its error, MCT_E_TOOBIG,
 * MCT_E_NOMEM. */
int jcf_build(JNIEnv *jni, jclass k, const char *name, uint8_t **data, size_t *len, char **unread,
              mct_err *err);

#endif
