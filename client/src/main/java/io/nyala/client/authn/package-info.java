/**
 * The client's side of authentication (docs/architecture.md, "Who may call what"): the user's
 * credentials, the token the leader master signs for them, its renewal before it expires, and
 * the interceptor that attaches it to every call. Builds on {@code io.nyala.client.rpc} and
 * {@code io.nyala.client.master}; never logs a password or a token.
 */
package io.nyala.client.authn;
