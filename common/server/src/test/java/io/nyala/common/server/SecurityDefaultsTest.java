package io.nyala.common.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.security.authz.RpcAuthentication;
import io.nyala.common.security.tls.CertFiles;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A server started without security flags speaks TLS as soon as it is given certificate files
 * and identifies its callers ({@code optional} for both, as Kudu's plain servers do; see
 * docs/architecture.md, "TLS on the wire" and "Who may call what"), and neither default refuses
 * a plaintext caller of a server that has no certificate.
 */
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
  void onlyATabletServerMayStartWithTheCaAloneAndRequireAuthentication(@TempDir Path dir) {
    Path ca = CertFiles.createCa(dir);
    ServerOptions o = CommandLine.populateCommand(new ServerOptions(),
        "--rpc_encryption=required", "--rpc_authentication=required", "--trusted_ca_file=" + ca);
    assertThat(o.wireTls("tserver").awaitsCertificate()).isTrue();
    assertThat(o.rpcAuthentication(o.wireTls("tserver")))
        .isEqualTo(RpcAuthentication.REQUIRED);
    assertThatThrownBy(() -> o.wireTls("master"))
        .hasMessageContaining("only tablet servers get their certificate from the master's CA")
        .hasMessageContaining("a master needs its own");
  }
}
