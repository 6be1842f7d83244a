package io.nyala.common.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.security.authz.RpcAuthentication;
import org.junit.jupiter.api.Test;
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
}
