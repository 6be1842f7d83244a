package io.nyala.common.security.pki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** PEM text round-trips through real files, and bad text is refused naming its source. */
@Timeout(30)
class PemTest {
  private static final TestPki PKI = new TestPki("pem");

  @TempDir
  Path dir;

  @Test
  void certificatesKeysAndCsrsRoundTripThroughFiles() throws Exception {
    ServerCredentials creds = PKI.server();
    Path chainFile = write("server.crt", Pem.encode(creds.chain()));
    Path keyFile = write("server.key", Pem.encode(creds.privateKey()));
    Csr csr = Csr.create(EcKeys.generate(), "ts-1", List.of("10.0.0.7", "ts-1.local"));
    Path csrFile = write("server.csr", csr.toPem());

    List<X509Certificate> chain = Pem.readCertificates(read(chainFile), chainFile.toString());
    PrivateKey key = Pem.readPrivateKey(read(keyFile), keyFile.toString());
    Csr back = Csr.fromPem(read(csrFile), csrFile.toString());

    assertThat(chain).containsExactlyElementsOf(creds.chain());
    assertThat(key.getEncoded()).isEqualTo(creds.privateKey().getEncoded());
    assertThat(back.toDer()).isEqualTo(csr.toDer());
    assertThat(back.subject()).isEqualTo("CN=ts-1");
    assertThat(back.signatureValid()).isTrue();
    assertThat(new ServerCredentials(key, chain).leaf()).isEqualTo(creds.leaf());
    assertThat(read(keyFile)).startsWith("-----BEGIN PRIVATE KEY-----\n")
        .endsWith("-----END PRIVATE KEY-----\n");
  }

  @Test
  void textAroundBlocksAndCrlfAreAccepted() {
    String pem = "Bag Attributes\r\n" + Pem.encode(PKI.ca.certificate()).replace("\n", "\r\n");
    assertThat(Pem.readCertificate(pem, "ca.crt")).isEqualTo(PKI.ca.certificate());
  }

  @Test
  void aTruncatedPemNamesTheFileAndTheMissingEnd() throws Exception {
    String pem = Pem.encode(PKI.ca.certificate());
    Path file = write("ca.crt", pem.substring(0, pem.length() / 2));
    assertThatThrownBy(() -> Pem.readCertificate(read(file), file.toString()))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining(file + ": truncated PEM CERTIFICATE: the block begun on line 1 "
            + "has no '-----END CERTIFICATE-----' line");
  }

  @Test
  void aPemCutInsideItsBodyIsNotACertificate() {
    String pem = Pem.encode(PKI.ca.certificate());
    String[] lines = pem.split("\n");
    String cut = lines[0] + "\n" + lines[1] + "\n" + lines[lines.length - 1] + "\n";
    assertThatThrownBy(() -> Pem.readCertificate(cut, "ca.crt"))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("ca.crt, certificate 1: not an X.509 certificate");
  }

  @Test
  void badBase64WrongTypesAndEmptyTextAreRefused() {
    assertThatThrownBy(() -> Pem.readCertificate(
        "-----BEGIN CERTIFICATE-----\n@@@@\n-----END CERTIFICATE-----\n", "ca.crt"))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("ca.crt: PEM CERTIFICATE begun on line 1 is not base64");
    String key = Pem.encode(PKI.ca.privateKey());
    assertThatThrownBy(() -> Pem.readCertificate(key, "ca.crt"))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("ca.crt, line 1: a PEM PRIVATE KEY where a CERTIFICATE was expected");
    assertThatThrownBy(() -> Pem.readPrivateKey("", "server.key"))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("server.key: empty, expected a PEM PRIVATE KEY");
    assertThatThrownBy(() -> Pem.readCsr("hello", "from ts-3"))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("from ts-3: no '-----BEGIN CERTIFICATE REQUEST-----' line");
  }

  @Test
  void twoCertificatesWhereOneIsExpectedAreRefused() {
    String two = Pem.encode(PKI.server().chain());
    assertThatThrownBy(() -> Pem.readCertificate(two, "ca.crt"))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("ca.crt: expected one CERTIFICATE block, found 2");
  }

  private Path write(String name, String text) throws Exception {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.US_ASCII);
  }

  private static String read(Path file) throws Exception {
    return Files.readString(file, StandardCharsets.US_ASCII);
  }
}
