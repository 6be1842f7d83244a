package io.nyala.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's trusted CA file and its handshake errors; TLS against real servers is in the
 * itests' {@code TlsIT}.
 */
@Timeout(30)
class ClientTlsTest {
  private static final HostPort SERVER = new HostPort("127.0.0.7", 7050);

  @TempDir
  Path dir;

  @Test
  void readsAPemCaCertificate() throws Exception {
    Path ca = dir.resolve("ca.crt");
    try (InputStream in = getClass().getResourceAsStream("/test-ca.crt")) {
      Files.copy(in, ca);
    }
    assertThat(ClientTls.trusting(ca).context().isClient()).isTrue();
  }

  @Test
  void namesAMissingOrMalformedCaFile() throws Exception {
    Path missing = dir.resolve("missing.crt");
    assertThatThrownBy(() -> ClientTls.trusting(missing))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageEndingWith("trusted CA file " + missing + " does not exist");
    Path junk = Files.writeString(dir.resolve("junk.crt"), "not a certificate\n");
    assertThatThrownBy(() -> ClientTls.trusting(junk))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("trusted CA file " + junk);
  }

  @Test
  void aFailedHandshakeSaysTlsAndNamesTheServer() {
    Throwable grpc = Status.UNAVAILABLE.withCause(new SSLHandshakeException(
        "PKIX path building failed")).asRuntimeException();
    NyalaException e = ClientTls.handshakeFailure(null, SERVER, grpc);
    assertThat(e.code()).isEqualTo(StatusCode.RUNTIME_ERROR);
    assertThat(e.isRetriable()).isFalse();
    assertThat(e).hasMessageContaining("TLS handshake with 127.0.0.7:7050 failed")
        .hasMessageContaining("certificate").hasMessageContaining("PKIX path building failed");
  }

  @Test
  void aPlaintextConnectionClosedUnansweredHintsAtTls() {
    Throwable closed = Status.UNAVAILABLE.withDescription("Network closed for unknown reason")
        .asRuntimeException();
    TransportException e = TransportException.of(SERVER,
        ClientTls.hintIfPlaintextRefused(null, closed));
    assertThat(e.isRetriable()).isTrue();
    assertThat(e).hasMessageContaining("127.0.0.7:7050 is unreachable: Network closed")
        .hasMessageContaining("requires TLS").hasMessageContaining("trustedCaFile");
    Throwable refused = Status.UNAVAILABLE.withDescription("io exception").asRuntimeException();
    assertThat(ClientTls.hintIfPlaintextRefused(null, refused)).isSameAs(refused);
    Throwable connectRefused = Status.UNAVAILABLE.withDescription("io exception")
        .withCause(new java.net.ConnectException("Connection refused")).asRuntimeException();
    assertThat(ClientTls.hintIfPlaintextRefused(null, connectRefused)).isSameAs(connectRefused);
  }

  @Test
  void plaintextConnectionResetByATlsServerGetsTheHint() {
    Throwable reset = Status.UNAVAILABLE.withDescription("io exception")
        .withCause(new java.io.IOException("Connection reset by peer")).asRuntimeException();
    TransportException e = TransportException.of(SERVER,
        ClientTls.hintIfPlaintextRefused(null, reset));
    assertThat(e.isRetriable()).isTrue();
    assertThat(e).hasMessageContaining("unreachable: io exception")
        .hasMessageContaining("trustedCaFile");
  }

  @Test
  void otherFailuresAreNotHandshakeFailures() {
    assertThat(ClientTls.handshakeFailure(null, SERVER,
        Status.UNAVAILABLE.withDescription("connection refused").asRuntimeException())).isNull();
  }
}
