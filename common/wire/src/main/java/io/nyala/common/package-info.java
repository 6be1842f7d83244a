/**
 * Nyala's shared foundation: the error type, status codes and addresses. This package, the
 * wire protocol ({@code proto}), {@code schema}, {@code row} and {@code partition} make up the
 * client-facing {@code nyala-common} artifact, which every application embedding the client
 * gets: they depend on gRPC and protobuf only, never on Ratis, a logging backend or the
 * server-side packages of {@code nyala-server-common} (docs/architecture.md, "Modules").
 */
package io.nyala.common;
