/**
 * Client authentication by signed tokens (docs/architecture.md, "Who may call what"): the
 * credential a client proves once ({@link io.nyala.common.security.token.CredentialVerifier},
 * a file of password hashes for now), the leader master's rotating signing keys
 * ({@link io.nyala.common.security.token.TokenSigner}) and the offline check every server makes
 * ({@link io.nyala.common.security.token.TokenVerifier}). It knows nothing of gRPC calls: the
 * {@code authz} package reads the token from a call and asks this one.
 */
package io.nyala.common.security.token;
