/**
 * The client's transport: one cached gRPC channel per server address (plaintext, or TLS trusting
 * the cluster's CA: {@link io.nyala.client.rpc.ClientTls}), deadlines, backoff and the mapping
 * of gRPC failures onto {@link io.nyala.common.NyalaException} codes.
 *
 * <p>Owns no knowledge of masters, tablets or rows; {@code io.nyala.client.master} and
 * {@code io.nyala.client.locations} build their retry policies on top of it.
 */
package io.nyala.client.rpc;
