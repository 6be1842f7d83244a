/**
 * The cluster's internal certificate authority and the TLS settings built on it
 * (docs/architecture.md, "TLS and the internal CA (library)"): EC key pairs, PKCS#10 requests of
 * servers ({@link io.nyala.common.security.pki.Csr}), the CA that issues their certificates
 * ({@link io.nyala.common.security.pki.CertificateAuthority}), PEM encoding, a server's
 * credentials and the gRPC and Ratis TLS contexts made from them. It holds values only: it
 * stores no files, knows no server directories, catalog or Raft state, and nothing here may log
 * or print key bytes. It is the only package that uses Bouncy Castle's PKIX classes; the JDK's
 * provider does the cryptography.
 */
package io.nyala.common.security.pki;
