/**
 * Who may call what on Nyala's RPC (docs/architecture.md, "Who may call what"): the
 * {@code --rpc_authentication} modes, the caller's identity derived from its TLS certificate or
 * its token ({@link io.nyala.common.security.authz.Caller}, put in the gRPC context for
 * handlers), and the one table of which methods need a server or a user ({@link
 * io.nyala.common.security.authz.RpcPolicy}), enforced before any handler runs. It reads
 * certificates the TLS layer already verified, leaves tokens to {@code security.token}, and
 * never loads or stores keys; it knows no
 * server, directory layout, catalog or Raft state, and uses no Bouncy Castle.
 */
package io.nyala.common.security.authz;
