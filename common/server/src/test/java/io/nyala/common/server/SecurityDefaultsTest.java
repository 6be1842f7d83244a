package io.nyala.common.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.security.authz.RpcAuthentication;
import io.nyala.common.security.tls.CertFiles;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A server started without security flags speaks TLS as soon as it is given certificate files
 * and identifies its callers ({@code optional} for both, as Kudu's plain servers do; see
 * docs/architecture.md, "TLS on the wire" and "Who may call what"), and neither default refuses
 * a plaintext caller of a server that has no certificate. Given the CA alone a server gets its
 * certificate from the cluster's CA ("TLS and the internal CA") when it can: a master with the
 * CA's key issues its own, any other server asks the leader with its cluster key; one that could
 * not is refused before it starts, saying what to give it.
 */
@Timeout(30)
class SecurityDefaultsTest {
  @Test
  void encryptionAndAuthenticationDefaultToOptional() {
    ServerOptions parsed = CommandLine.populateCommand(new ServerOptions());
    assertThat(parsed.rpcEncryption).isEqualTo("optional");
    assertThat(parsed.rpcAuthentication).isEqualTo("optional");
    assertThat(new ServerOptions().rpcEncryption).isEqualTo(parsed.rpcEncryption);
    assertThat(new ServerOptions().rpcAuthentication).isEqualTo(parsed.rpcAuthentication);
  }

  @Test
  void withoutCertificateFilesTheDefaultsServePlaintextAndRefuseNothing() {
    ServerOptions o = CommandLine.populateCommand(new ServerOptions());
    assertThat(o.wireTls().enabled()).isFalse();
    assertThat(o.rpcAuthentication(o.wireTls())).isEqualTo(RpcAuthentication.OPTIONAL);
  }

  @Test
  void aServerWithTheCaAloneAwaitsItsCertificateWhenItCanGetOne(@TempDir Path dir) {
    Path ca = CertFiles.createCa(dir);
    String[] caAlone = {"--rpc_encryption=required", "--rpc_authentication=required",
        "--trusted_ca_file=" + ca};
    ServerOptions encrypting = CommandLine.populateCommand(new ServerOptions(),
        concat(caAlone, "--encrypt_data_at_rest=true"));
    for (String role : new String[] {"tserver", "master"}) {
      assertThat(encrypting.wireTls(role).awaitsCertificate()).as(role).isTrue();
      assertThat(encrypting.rpcAuthentication(encrypting.wireTls(role)))
          .isEqualTo(RpcAuthentication.REQUIRED);
    }

    // A master with the CA's key issues its own: no membership proof, no cluster key needed.
    ServerOptions holdsCaKey = CommandLine.populateCommand(new ServerOptions() {
      @Override
      public String tlsCaKeyFile() {
        return dir.resolve(CertFiles.CA_KEY).toString();
      }
    }, caAlone);
    assertThat(holdsCaKey.wireTls("master").awaitsCertificate()).isTrue();
  }

  @Test
  void aServerThatWouldAskWithoutAClusterKeyIsRefusedSayingWhatToGive(@TempDir Path dir) {
    Path ca = CertFiles.createCa(dir);
    ServerOptions o = CommandLine.populateCommand(new ServerOptions(),
        "--rpc_encryption=required", "--trusted_ca_file=" + ca);
    assertThatThrownBy(() -> o.wireTls("master"))
        .hasMessageContaining("this master would ask the leader master's CA")
        .hasMessageContaining("needs --encrypt_data_at_rest")
        .hasMessageContaining("the first masters of a cluster issue their own with "
            + "--tls_ca_key_file")
        .hasMessageContaining("nyala cert create-server");
    assertThatThrownBy(() -> o.wireTls("tserver"))
        .hasMessageContaining("this tserver would ask the leader master's CA")
        .hasMessageContaining("needs --encrypt_data_at_rest")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("--tls_ca_key_file"));
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
