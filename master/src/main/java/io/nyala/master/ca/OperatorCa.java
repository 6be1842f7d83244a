package io.nyala.master.ca;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.security.OwnerOnlyFiles;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.tls.WireTls;
import java.nio.file.Path;
import java.time.Clock;

/**
 * The operator's CA a master imports into the sys catalog ({@code --tls_ca_key_file} with
 * {@code --trusted_ca_file}), so that a cluster whose certificates were made with
 * {@code nyala cert} keeps its CA when the master starts issuing (docs/architecture.md, "TLS and
 * the internal CA"). Read once at start; the catalog then holds it sealed.
 */
public final class OperatorCa {
  private OperatorCa() {}

  /**
   * The CA of the two files, or null when {@code keyFile} is empty.
   *
   * @throws NyalaException INVALID_ARGUMENT naming the flag and file: no CA certificate file, a
   *     key file others may read, a key that is not the certificate's; NOT_FOUND for a missing
   *     file
   */
  public static CertificateAuthority read(String keyFile, String caFile, Clock clock) {
    if (keyFile == null || keyFile.isBlank()) {
      return null;
    }
    if (caFile == null || caFile.isBlank()) {
      throw NyalaException.invalidArgument("--tls_ca_key_file %s needs --trusted_ca_file (the "
          + "certificate of that CA)", keyFile);
    }
    Path key = Path.of(keyFile);
    Path cert = Path.of(caFile);
    OwnerOnlyFiles.refuseIfExposed(key, "CA key file",
        "issue certificates that every server of the cluster trusts");
    try {
      return CertificateAuthority.restore(
          Pem.readPrivateKey(WireTls.readFlagFile(key, "--tls_ca_key_file"),
              "--tls_ca_key_file " + key),
          Pem.readCertificate(WireTls.readFlagFile(cert, "--trusted_ca_file"),
              "--trusted_ca_file " + cert),
          clock);
    } catch (NyalaException e) {
      if (e.code() == StatusCode.INVALID_ARGUMENT) {
        throw NyalaException.invalidArgument("--tls_ca_key_file %s with --trusted_ca_file %s: %s",
            key, cert, e.detail());
      }
      throw e;
    }
  }

}
