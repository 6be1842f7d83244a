/**
 * A server's own certificate from the cluster's CA (docs/architecture.md, "TLS and the internal
 * CA"), for tablet servers and masters alike: its own key, kept sealed and owner-only through the
 * server's {@code Env} and reused across restarts ({@code CredentialFiles}); whether the stored
 * certificate is still good, due for renewal or to be replaced ({@code StoredCredentials}); its
 * certificate request, with the proof of membership, to the leader master
 * ({@code CertificateRequester}); and its renewal while the server runs, swapped into the
 * server's TLS ({@code CertificateRenewal}). Getting the first certificate runs before the
 * server's listeners start. It must not touch tablets, the catalog or Raft; it knows no master or
 * tablet server code.
 */
package io.nyala.common.security.cert;
