/**
 * A tablet server's certificate from the master's CA (docs/architecture.md, "TLS and the
 * internal CA"): its own key, kept sealed and owner-only through the server's {@code Env} and
 * reused across restarts; its certificate request, with the proof of membership, to the leader
 * master; and the issued chain kept beside the key until it needs renewal. It runs before the
 * server's listeners start and must not touch tablets or Raft.
 */
package io.nyala.common.security.cert;
