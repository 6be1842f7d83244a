package io.nyala.minicluster;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.client.authn.UserCredentials;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.rpc.Channels;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.tls.CertFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * A minicluster's TLS on the wire (docs/architecture.md, "TLS on the wire"), or none: the CA and
 * one certificate per server, made as an operator would with {@code nyala cert} under
 * {@code <data root>/tls} and kept across restarts; the flags each server starts with (TLS
 * required, and {@code --rpc_authentication=required}: see "Who may call what"); the user its
 * clients authenticate as ({@link ClusterUsers}); and the channels the minicluster's own probes
 * use. Probes and the harness's admin calls (a leadership transfer, an injected partition)
 * present a certificate of their own, {@value #HARNESS}, as an operator's tool would: servers
 * serve admin calls to servers only, and client calls to users with a token or servers.
 */
final class ClusterTls {
  /** The name of the harness's own certificate, for its admin calls. */
  static final String HARNESS = "minicluster-harness";
  private static final String LOOPBACK = "127.0.0.1";
  private static final ClusterTls OFF = new ClusterTls(null, null, null, false);

  /** Null when off. */
  private final Path dir;
  /** Presents the {@value #HARNESS} certificate; null when off. */
  private final SslContext harnessContext;
  /** The clients' user; null when off. */
  private final ClusterUsers users;
  /** Whether servers get their certificates from the cluster's CA (masters issue their own). */
  private final boolean tserversFromMaster;

  private ClusterTls(Path dir, SslContext harnessContext, ClusterUsers users,
      boolean tserversFromMaster) {
    this.dir = dir;
    this.harnessContext = harnessContext;
    this.users = users;
    this.tserversFromMaster = tserversFromMaster;
  }

  /**
   * The TLS of a cluster under {@code dataRoot}; makes its CA at the first start. With {@code
   * tserversFromMaster} the masters import that CA, issue their own certificates with it and
   * the tablet servers' on request.
   */
  static ClusterTls create(Path dataRoot, boolean on, boolean tserversFromMaster) {
    if (!on) {
      return OFF;
    }
    Path dir = dataRoot.resolve("tls");
    Path ca = dir.resolve(CertFiles.CA_CERT);
    if (!Files.exists(ca)) {
      CertFiles.createCa(dir);
    }
    Path harnessCert = dir.resolve(HARNESS + ".crt");
    Path harnessKey = dir.resolve(HARNESS + ".key");
    if (!Files.exists(harnessCert)) {
      CertFiles.createServer(dir, HARNESS, List.of(LOOPBACK));
    }
    try {
      X509Certificate caCert = Pem.readCertificate(Files.readString(ca), ca.toString());
      ServerCredentials harness = new ServerCredentials(
          Pem.readPrivateKey(Files.readString(harnessKey), harnessKey.toString()),
          Pem.readCertificates(Files.readString(harnessCert), harnessCert.toString()));
      return new ClusterTls(dir, TlsContexts.forClient(caCert, harness),
          ClusterUsers.create(dir), tserversFromMaster);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read the minicluster's CA " + ca + ": " + e, e);
    }
  }

  boolean enabled() {
    return dir != null;
  }

  /** The CA certificate clients trust, or null when TLS is off. */
  Path trustedCaFile() {
    return dir == null ? null : dir.resolve(CertFiles.CA_CERT);
  }

  /** The user (and password) the cluster's clients authenticate as; null when TLS is off. */
  UserCredentials credentials() {
    return users == null ? null : users.credentials();
  }

  /** The file holding the user's password; null when TLS is off. */
  Path passwordFile() {
    return users == null ? null : users.passwordFile();
  }

  /**
   * The TLS flags of master {@code name} reached at {@code host} and the users it accepts; none
   * when TLS is off. When servers get their certificates from the cluster's CA, the CA and its
   * key ({@code --tls_ca_key_file}): the master imports the CA and issues its own certificate
   * (docs/architecture.md, "TLS and the internal CA"); else the certificate made for it
   * ({@link #flagsFor}).
   */
  synchronized List<String> masterFlagsFor(String name, String host) {
    if (dir == null) {
      return List.of();
    }
    List<String> f = new ArrayList<>(tserversFromMaster ? caOnly() : flagsFor(name, host));
    f.addAll(users.masterFlags());
    if (tserversFromMaster) {
      f.add("--tls_ca_key_file=" + dir.resolve(CertFiles.CA_KEY));
    }
    return f;
  }

  /**
   * The TLS flags of a tablet server that gets its certificate from the master's CA: the CA
   * only; {@link #flagsFor} when the minicluster makes its certificate.
   */
  synchronized List<String> tserverFlagsFor(String name, String host) {
    if (dir == null || !tserversFromMaster) {
      return flagsFor(name, host);
    }
    return caOnly();
  }

  private List<String> caOnly() {
    return List.of("--rpc_encryption=required", "--rpc_authentication=required",
        "--trusted_ca_file=" + trustedCaFile());
  }

  /**
   * The TLS flags of server {@code name} reached at {@code host}, making its certificate (that
   * address its only name) at its first start; none when TLS is off.
   */
  synchronized List<String> flagsFor(String name, String host) {
    if (dir == null) {
      return List.of();
    }
    Path cert = dir.resolve(name + ".crt");
    Path key = dir.resolve(name + ".key");
    if (!Files.exists(cert)) {
      CertFiles.createServer(dir, name, List.of(host));
    }
    return List.of("--rpc_encryption=required", "--rpc_authentication=required",
        "--tls_cert_file=" + cert,
        "--tls_key_file=" + key, "--trusted_ca_file=" + trustedCaFile());
  }

  /** Channels to the cluster's servers for the minicluster's probes. */
  Channels newChannels() {
    return newHarnessChannels();
  }

  /** Channels that present the harness's certificate, for admin calls the servers reserve. */
  Channels newHarnessChannels() {
    return new Channels().useTls(harnessContext);
  }

  /** One channel to {@code rpc}, for a probe that closes it after. */
  ManagedChannel channel(HostPort rpc) {
    return channel(rpc, harnessContext);
  }

  /** One channel to {@code rpc} presenting the harness's certificate, for an admin call. */
  ManagedChannel harnessChannel(HostPort rpc) {
    return channel(rpc, harnessContext);
  }

  private static ManagedChannel channel(HostPort rpc, SslContext tls) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(rpc.host(), rpc.port());
    return (tls == null ? b.usePlaintext() : b.sslContext(tls)).build();
  }
}
