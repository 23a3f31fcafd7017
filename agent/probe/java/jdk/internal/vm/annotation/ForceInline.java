package jdk.internal.vm.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Compile-time stand-in for the JDK's own annotation of this name, which
 * --release 8 does not offer: only its name reaches Probe.class. HotSpot
 * honours it in a class of the boot loader (the probe class is one): the
 * JIT inlines such a method whatever its size and counts it as one byte
 * of the caller's inlining budget. Never embedded in the agent.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface ForceInline {
}
