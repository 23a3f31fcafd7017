/* codesource.h — the class file of a class read from where its loader found
 * it: the location of the class's CodeSource (its ProtectionDomain's), a
 * directory or a jar, read here in C (zip.h for a jar). For the classes of
 * loaders other than the JDK's: no code of the class's loader runs, nor any
 * Java code at all (fields and native methods of java.lang.Class, and final
 * getters of ProtectionDomain, CodeSource and URL, a final class). What is
 * read is what that location holds now, not necessarily the bytes the class
 * was defined from: the caller checks them against the class the JVM has.
 *
 * Read: file: URLs (a directory, or a jar or zip file), jar:file: URLs
 * (the jar, or a directory inside it, as Spring Boot 2 writes BOOT-INF/
 * classes) and jar:nested: URLs of a directory inside a jar (Spring Boot
 * 3.2 on). Refused, with the reason: a class with no protection domain,
 * code source or location (one defined from bytes made in memory), other
 * protocols, and jars inside jars (the libraries of Spring Boot's fat
 * jars). */
#ifndef MCT_CODESOURCE_H
#define MCT_CODESOURCE_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* The bytes of name.class (name the class's internal name, modified UTF-8)
 * at the code source of class cls (a local reference, the caller's): malloc'd
 * bytes the caller frees, *len their count. NULL with e saying why, naming
 * the code source where there is one: MCT_E_UNSUPPORTED (no code source, or
 * one not read), MCT_E_NOTFOUND, MCT_E_IO, MCT_E_CLASSFILE (a damaged jar),
 * MCT_E_TOOBIG, MCT_E_NOMEM, MCT_E_JVMTI (a JNI call failed). Any exception
 * is cleared. */
uint8_t *cs_read_class(JNIEnv *jni, jclass cls, const char *name, size_t *len, mct_err *e);

#endif
