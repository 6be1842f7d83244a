package io.nyala.common;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public type or member that is not for applications: it may change or disappear
 * without notice. It is public only because other Nyala modules (the master, the tablet server,
 * the minicluster, the client's subpackages) need it from another package, typically to move
 * values to and from their protobuf wire form. The client's public surface test fails on any
 * public method of the API packages that takes or returns a gRPC or protobuf type without this
 * mark (docs/conventions.md, "The client's public API").
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface InternalApi {}
