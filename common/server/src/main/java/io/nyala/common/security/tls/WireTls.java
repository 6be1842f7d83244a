package io.nyala.common.security.tls;

import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.common.NyalaException;
import io.nyala.common.security.OwnerOnlyFiles;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.SwappableKeyManager;
import io.nyala.common.security.pki.TlsContexts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * One server's TLS on the wire, from its flags: the certificate and key it presents and the CA
 * it trusts, or nothing when it runs plaintext. Everything is read and checked when it is made,
 * so a server with a missing, exposed or mismatched file refuses to start, naming the flag and
 * the file. The contexts it gives: Nyala's gRPC server (client certificates optional: clients
 * have none, servers present theirs), the server's own outgoing channels (presenting its
 * certificate), and Ratis (mutual TLS).
 */
public final class WireTls {
  private static final WireTls PLAINTEXT = new WireTls(null, null);

  /**
   * What the server presents, swappable while it runs ({@link #swapCredentials}); null when
   * plaintext, or while the certificate is still to come from the master's CA.
   */
  private final SwappableKeyManager own;
  /** Null when plaintext. */
  private final X509Certificate trustedCa;

  private WireTls(ServerCredentials own, X509Certificate trustedCa) {
    this.own = own == null ? null : new SwappableKeyManager(own);
    this.trustedCa = trustedCa;
  }

  /** No TLS. */
  public static WireTls plaintext() {
    return PLAINTEXT;
  }

  /**
   * The TLS a server's flags ask for.
   *
   * @param mode {@code --rpc_encryption}
   * @param certFile {@code --tls_cert_file}: PEM, the server's certificate (optionally followed
   *     by the CA's); empty if not given
   * @param keyFile {@code --tls_key_file}: PEM PKCS#8, owner-only; empty if not given
   * @param caFile {@code --trusted_ca_file}: PEM, the CA's certificate; empty if not given
   * @throws NyalaException INVALID_ARGUMENT naming the missing flag (required mode, or some but
   *     not all files given), a malformed or exposed file, or a certificate the CA did not sign;
   *     NOT_FOUND naming a missing file
   */
  public static WireTls fromFlags(String mode, String certFile, String keyFile, String caFile) {
    RpcEncryption m = RpcEncryption.parse(mode);
    if (m == RpcEncryption.DISABLED) {
      return PLAINTEXT;
    }
    List<String> missing = new ArrayList<>();
    addIfEmpty(missing, "--tls_cert_file", certFile);
    addIfEmpty(missing, "--tls_key_file", keyFile);
    addIfEmpty(missing, "--trusted_ca_file", caFile);
    if (m == RpcEncryption.OPTIONAL && missing.size() == 3) {
      return PLAINTEXT;
    }
    if (missing.size() == 2 && !missing.contains("--trusted_ca_file")) {
      // Only the CA: the server gets its certificate from the master's CA before it serves
      // (docs/architecture.md, "TLS and the internal CA").
      return new WireTls(null, Pem.readCertificate(
          readFlagFile(Path.of(caFile), "--trusted_ca_file"),
          "--trusted_ca_file " + caFile));
    }
    if (!missing.isEmpty()) {
      throw NyalaException.invalidArgument("--rpc_encryption=%s needs %s (PEM files; "
          + "'nyala cert create-ca' and 'nyala cert create-server' make them)", m.flagValue(),
          String.join(", ", missing));
    }
    return load(Path.of(certFile), Path.of(keyFile), Path.of(caFile));
  }

  private static void addIfEmpty(List<String> missing, String flag, String value) {
    if (value == null || value.isBlank()) {
      missing.add(flag);
    }
  }

  /** Reads and checks the three files. */
  static WireTls load(Path certFile, Path keyFile, Path caFile) {
    X509Certificate ca = Pem.readCertificate(readFlagFile(caFile, "--trusted_ca_file"),
        "--trusted_ca_file " + caFile);
    List<X509Certificate> chain = new ArrayList<>(Pem.readCertificates(
        readFlagFile(certFile, "--tls_cert_file"), "--tls_cert_file " + certFile));
    X509Certificate leaf = chain.get(0);
    try {
      leaf.verify(ca.getPublicKey());
    } catch (GeneralSecurityException e) {
      throw NyalaException.invalidArgument("--tls_cert_file %s: certificate '%s' was not issued "
          + "by the CA of --trusted_ca_file %s ('%s')", certFile,
          leaf.getSubjectX500Principal().getName(), caFile, ca.getSubjectX500Principal().getName());
    }
    if (!chain.get(chain.size() - 1).equals(ca)) {
      chain.add(ca);
    }
    OwnerOnlyFiles.refuseIfExposed(keyFile, "TLS key file",
        "impersonate this server to the cluster");
    ServerCredentials own;
    try {
      own = new ServerCredentials(Pem.readPrivateKey(readFlagFile(keyFile, "--tls_key_file"),
          "--tls_key_file " + keyFile), chain);
    } catch (NyalaException e) {
      throw NyalaException.invalidArgument("--tls_key_file %s with --tls_cert_file %s: %s",
          keyFile, certFile, e.getMessage());
    }
    return new WireTls(own, ca);
  }

  /**
   * The text of the PEM file a flag names; NOT_FOUND or IO_ERROR naming the flag and the file.
   */
  public static String readFlagFile(Path file, String flag) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("%s %s does not exist", flag, file);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read " + flag + " " + file + ": " + e, e);
    }
  }

  /** Whether this server speaks TLS (and holds its certificate). */
  public boolean enabled() {
    return own != null;
  }

  /**
   * Whether this server speaks TLS but has no certificate yet: given only {@code
   * --trusted_ca_file}, it asks the master's CA for one ({@link #withCredentials}) before it
   * starts its listeners.
   */
  public boolean awaitsCertificate() {
    return own == null && trustedCa != null;
  }

  /** Whether this server speaks TLS, with its certificate or awaiting it. */
  public boolean speaksTls() {
    return trustedCa != null;
  }

  /** The CA this server trusts, or null when plaintext. */
  public X509Certificate trustedCa() {
    return trustedCa;
  }

  /** The credentials this server presents now, or null. */
  public ServerCredentials credentials() {
    return own == null ? null : own.current();
  }

  /**
   * Seconds until the certificate presented now expires (its X.509 notAfter, a wall-clock time;
   * negative once past), or NaN while there is none.
   */
  public double secondsLeft() {
    ServerCredentials c = credentials();
    return c == null ? Double.NaN
        : (c.expiresAt().toEpochMilli() - System.currentTimeMillis()) / 1000.0;
  }

  /**
   * This TLS presenting {@code issued} (from the master's CA), which must chain to the trusted
   * CA.
   *
   * @throws NyalaException INVALID_ARGUMENT when the certificate is not the trusted CA's
   */
  public WireTls withCredentials(ServerCredentials issued) {
    checkIssuedByTrustedCa(issued);
    return new WireTls(issued, trustedCa);
  }

  /**
   * Presents {@code next} in every TLS handshake from now on: of Nyala's gRPC server, of this
   * server's channels, of Ratis and of HTTPS, all built on the same key manager. Connections
   * made before keep going with what they presented (docs/architecture.md, "TLS and the internal
   * CA").
   *
   * @throws NyalaException INVALID_ARGUMENT when the trusted CA did not issue {@code next}, or
   *     ILLEGAL_STATE when this server has no certificate to swap
   */
  public void swapCredentials(ServerCredentials next) {
    require();
    checkIssuedByTrustedCa(next);
    own.swap(next);
  }

  private void checkIssuedByTrustedCa(ServerCredentials issued) {
    if (trustedCa == null) {
      throw NyalaException.illegalState("TLS is off (--rpc_encryption)");
    }
    try {
      issued.leaf().verify(trustedCa.getPublicKey());
    } catch (GeneralSecurityException e) {
      throw NyalaException.invalidArgument("certificate '%s' from the master's CA was not issued "
          + "by the CA of --trusted_ca_file ('%s')",
          issued.leaf().getSubjectX500Principal().getName(),
          trustedCa.getSubjectX500Principal().getName());
    }
  }

  /** The context of Nyala's gRPC server: presents the certificate, client's optional. */
  public SslContext serverContext() {
    return TlsContexts.forServer(require(), trustedCa, TlsContexts.ClientAuth.OPTIONAL);
  }

  /** The context of this server's channels to other servers: presents the certificate. */
  public SslContext channelContext() {
    return TlsContexts.forClient(trustedCa, require());
  }

  /** Ratis' TLS: mutual, every peer presents a certificate of the CA. */
  public GrpcTlsConfig ratis() {
    return TlsContexts.forRatis(require(), trustedCa);
  }

  /** The web server's HTTPS context ({@code --webserver_tls}): presents the certificate. */
  public SSLContext httpsContext() {
    return TlsContexts.forHttps(require());
  }

  private SwappableKeyManager require() {
    if (own == null) {
      throw NyalaException.illegalState("TLS is off (--rpc_encryption)");
    }
    return own;
  }

  @Override
  public String toString() {
    if (trustedCa == null) {
      return "plaintext";
    }
    return (own == null ? "TLS awaiting a certificate from the master's CA"
        : "TLS as " + own.current())
        + ", trusting '"
        + trustedCa.getSubjectX500Principal().getName() + "'";
  }
}
