package io.nyala.common.security.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code --rpc_authentication}: its values, and that {@code required} needs TLS. */
@Timeout(30)
class RpcAuthenticationTest {
  @Test
  void parsesKudusValuesCaseInsensitively() {
    assertThat(RpcAuthentication.parse("disabled")).isEqualTo(RpcAuthentication.DISABLED);
    assertThat(RpcAuthentication.parse(" Optional ")).isEqualTo(RpcAuthentication.OPTIONAL);
    assertThat(RpcAuthentication.parse("REQUIRED")).isEqualTo(RpcAuthentication.REQUIRED);
    assertThat(RpcAuthentication.REQUIRED.flagValue()).isEqualTo("required");
  }

  @Test
  void anUnknownValueIsRefusedNamingItAndTheAcceptedOnes() {
    assertThatThrownBy(() -> RpcAuthentication.parse("kerberos"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("--rpc_authentication=kerberos")
        .hasMessageContaining("disabled, optional or required");
  }

  @Test
  void requiredWithoutTlsRefusesToStart() {
    assertThatThrownBy(() -> RpcAuthentication.fromFlags("required", false))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("--rpc_authentication=required needs TLS")
        .hasMessageContaining("--rpc_encryption");
    assertThat(RpcAuthentication.fromFlags("required", true))
        .isEqualTo(RpcAuthentication.REQUIRED);
    assertThat(RpcAuthentication.fromFlags("optional", false))
        .isEqualTo(RpcAuthentication.OPTIONAL);
  }

  @Test
  void commonNamesAreReadFromRfc2253NamesWithEscapes() {
    assertThat(CallerAuthentication.commonName("CN=ts-0")).isEqualTo("ts-0");
    assertThat(CallerAuthentication.commonName("O=Nyala,CN=a\\,b+OU=x")).isEqualTo("a,b");
    assertThat(CallerAuthentication.commonName("O=Nyala")).isNull();
  }
}
