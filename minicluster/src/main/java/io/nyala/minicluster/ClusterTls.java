package io.nyala.minicluster;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.rpc.Channels;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.TlsContexts;
import io.nyala.common.security.tls.CertFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A minicluster's TLS on the wire (docs/architecture.md, "TLS on the wire"), or none: the CA and
 * one certificate per server, made as an operator would with {@code nyala cert} under
 * {@code <data root>/tls} and kept across restarts; the flags each server starts with; and the
 * channels the minicluster's own probes use, which trust the CA and present nothing, as a
 * client does.
 */
final class ClusterTls {
  private static final ClusterTls OFF = new ClusterTls(null, null);

  /** Null when off. */
  private final Path dir;
  /** Null when off. */
  private final SslContext clientContext;

  private ClusterTls(Path dir, SslContext clientContext) {
    this.dir = dir;
    this.clientContext = clientContext;
  }

  /** The TLS of a cluster under {@code dataRoot}; makes its CA at the first start. */
  static ClusterTls create(Path dataRoot, boolean on) {
    if (!on) {
      return OFF;
    }
    Path dir = dataRoot.resolve("tls");
    Path ca = dir.resolve(CertFiles.CA_CERT);
    if (!Files.exists(ca)) {
      CertFiles.createCa(dir);
    }
    try {
      return new ClusterTls(dir, TlsContexts.forClient(Pem.readCertificate(Files.readString(ca),
          ca.toString())));
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
    return List.of("--rpc_encryption=required", "--tls_cert_file=" + cert,
        "--tls_key_file=" + key, "--trusted_ca_file=" + trustedCaFile());
  }

  /** Channels to the cluster's servers for the minicluster's probes. */
  Channels newChannels() {
    return new Channels().useTls(clientContext);
  }

  /** One channel to {@code rpc}, for a probe that closes it after. */
  ManagedChannel channel(HostPort rpc) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(rpc.host(), rpc.port());
    return (clientContext == null ? b.usePlaintext() : b.sslContext(clientContext)).build();
  }
}
