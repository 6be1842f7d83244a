package io.nyala.common.security.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import io.nyala.common.HostPort;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.RpcServer;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.ServerCredentials;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server's TLS from its flags: what it refuses to start with, and a real {@link RpcServer} on
 * loopback that serves {@link Channels} presenting a certificate of its CA, and no one else.
 */
@Timeout(60)
class WireTlsTest {
  @TempDir
  Path dir;

  @Test
  void disabledIsPlaintextWhateverFilesAreGiven() {
    assertThat(WireTls.fromFlags("disabled", "x.crt", "", "").enabled()).isFalse();
  }

  @Test
  void requiredNamesEachMissingFlag() {
    assertThatThrownBy(() -> WireTls.fromFlags("required", "", "", ""))
        .hasMessageContaining("--rpc_encryption=required needs --tls_cert_file, --tls_key_file, "
            + "--trusted_ca_file");
    assertThatThrownBy(() -> WireTls.fromFlags("REQUIRED", "a.crt", "a.key", ""))
        .hasMessageContaining("needs --trusted_ca_file");
  }

  @Test
  void optionalIsPlaintextWithoutFilesAndTlsWithThem() {
    assertThat(WireTls.fromFlags("optional", "", "", "").enabled()).isFalse();
    CertFiles.createCa(dir);
    CertFiles.ServerFiles s = CertFiles.createServer(dir, "ts-1", List.of("127.0.0.1"));
    assertThat(WireTls.fromFlags("optional", s.certFile().toString(), s.keyFile().toString(),
        ca().toString()).enabled()).isTrue();
    assertThatThrownBy(() -> WireTls.fromFlags("optional", s.certFile().toString(), "", ""))
        .hasMessageContaining("needs --tls_key_file, --trusted_ca_file");
  }

  @Test
  void theCaAloneAwaitsACertificateOfThatCaFromTheMaster() throws Exception {
    CertFiles.createCa(dir);
    WireTls pending = WireTls.fromFlags("required", "", "", ca().toString());
    assertThat(pending.awaitsCertificate()).isTrue();
    assertThat(pending.enabled()).isFalse();
    assertThat(pending.speaksTls()).isTrue();
    assertThat(pending.toString()).contains("awaiting a certificate from the master's CA");

    CertFiles.ServerFiles s = CertFiles.createServer(dir, "ts-1", List.of("127.0.0.1"));
    ServerCredentials issued = new ServerCredentials(
        Pem.readPrivateKey(Files.readString(s.keyFile()), "key"),
        Pem.readCertificates(Files.readString(s.certFile()), "crt"));
    WireTls ready = pending.withCredentials(issued);
    assertThat(ready.enabled()).isTrue();
    assertThat(ready.awaitsCertificate()).isFalse();

    Path other = dir.resolve("other");
    CertFiles.createCa(other);
    CertFiles.ServerFiles foreign = CertFiles.createServer(other, "ts-2", List.of("127.0.0.1"));
    ServerCredentials stranger = new ServerCredentials(
        Pem.readPrivateKey(Files.readString(foreign.keyFile()), "key"),
        Pem.readCertificates(Files.readString(foreign.certFile()), "crt"));
    assertThatThrownBy(() -> pending.withCredentials(stranger))
        .hasMessageContaining("was not issued by the CA of --trusted_ca_file");
  }

  @Test
  void refusesAnUnknownMode() {
    assertThatThrownBy(() -> WireTls.fromFlags("on", "", "", ""))
        .hasMessageContaining("--rpc_encryption=on: expected disabled, optional or required");
  }

  @Test
  void refusesAKeyFileOthersMayRead() throws Exception {
    CertFiles.createCa(dir);
    CertFiles.ServerFiles s = CertFiles.createServer(dir, "ts-1", List.of("127.0.0.1"));
    Files.setPosixFilePermissions(s.keyFile(), PosixFilePermissions.fromString("rw-r--r--"));
    assertThatThrownBy(() -> required(s, ca()))
        .hasMessageContaining("TLS key file " + s.keyFile() + " has mode rw-r--r--")
        .hasMessageContaining("chmod 600");
  }

  @Test
  void refusesACertificateOfAnotherCaAndAMissingFile() {
    CertFiles.createCa(dir);
    CertFiles.ServerFiles s = CertFiles.createServer(dir, "ts-1", List.of("127.0.0.1"));
    Path other = CertFiles.createCa(dir.resolve("other"));
    assertThatThrownBy(() -> required(s, other))
        .hasMessageContaining("--tls_cert_file " + s.certFile())
        .hasMessageContaining("was not issued by the CA of --trusted_ca_file " + other);
    assertThatThrownBy(() -> required(s, dir.resolve("nope.crt")))
        .hasMessageContaining("--trusted_ca_file " + dir.resolve("nope.crt") + " does not exist");
  }

  @Test
  void anRpcServerServesOnlyChannelsThatTrustItsCa() {
    CertFiles.createCa(dir);
    WireTls server = required(CertFiles.createServer(dir, "m-1", List.of("127.0.0.1")), ca());
    WireTls peer = required(CertFiles.createServer(dir, "ts-1", List.of("127.0.0.1")), ca());
    Path otherDir = dir.resolve("other");
    CertFiles.createCa(otherDir);
    WireTls stranger = required(CertFiles.createServer(otherDir, "ts-9", List.of("127.0.0.1")),
        otherDir.resolve(CertFiles.CA_CERT));
    RpcServer rpc = new RpcServer("m-1", new HostPort("127.0.0.1", 0), 2,
        new MetricRegistry("m-1"));
    rpc.addService(new HealthStatusManager().getHealthService());
    rpc.useTls(server.serverContext());
    rpc.start();
    try (rpc; Channels tls = new Channels().useTls(peer.channelContext());
        Channels plain = new Channels();
        Channels foreign = new Channels().useTls(stranger.channelContext())) {
      HostPort addr = rpc.boundAddress();
      assertThat(check(tls, addr)).isEqualTo(ServingStatus.SERVING);
      assertThatThrownBy(() -> check(plain, addr)).isInstanceOf(StatusRuntimeException.class);
      assertThatThrownBy(() -> check(foreign, addr)).isInstanceOf(StatusRuntimeException.class);
    }
  }

  private Path ca() {
    return dir.resolve(CertFiles.CA_CERT);
  }

  private static WireTls required(CertFiles.ServerFiles s, Path ca) {
    return WireTls.fromFlags("required", s.certFile().toString(), s.keyFile().toString(),
        ca.toString());
  }

  private static ServingStatus check(Channels channels, HostPort addr) {
    return HealthGrpc.newBlockingStub(channels.get(addr)).withDeadlineAfter(20, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance()).getStatus();
  }
}
