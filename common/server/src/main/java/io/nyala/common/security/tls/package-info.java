/**
 * TLS on the wire with certificates the operator made (docs/architecture.md, "TLS on the
 * wire"): the {@code --rpc_encryption} modes, a server's TLS settings read from its
 * {@code --tls_cert_file}, {@code --tls_key_file} and {@code --trusted_ca_file}, and the files
 * {@code nyala cert create-ca} and {@code create-server} write. It builds on
 * {@code io.nyala.common.security.pki} for certificates and contexts and never uses Bouncy
 * Castle itself; it knows no server, directory layout, catalog or Raft state, and nothing here
 * may log or print key bytes.
 */
package io.nyala.common.security.tls;
