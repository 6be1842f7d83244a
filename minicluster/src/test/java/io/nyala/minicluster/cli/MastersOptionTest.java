package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import org.junit.jupiter.api.Test;

class MastersOptionTest {
  @Test
  void theOptionWinsOverTheEnvironment() {
    assertThat(MastersOption.resolve("127.0.0.1:7051", "10.0.0.1:7051", "10.0.0.2:7051"))
        .isEqualTo("127.0.0.1:7051");
  }

  @Test
  void withoutTheOptionTheEnvironmentIsUsed() {
    assertThat(MastersOption.resolve(null, " 127.0.0.1:7051,127.0.0.1:7151 ", "10.0.0.2:7051"))
        .isEqualTo("127.0.0.1:7051,127.0.0.1:7151");
    assertThat(MastersOption.resolve("  ", "127.0.0.1:7051", null)).isEqualTo("127.0.0.1:7051");
  }

  @Test
  void withNeitherTheClientConfigsMastersAreUsed() {
    assertThat(MastersOption.resolve(null, " ", "127.0.0.1:7051")).isEqualTo("127.0.0.1:7051");
  }

  @Test
  void noneIsAnErrorThatSaysWhatToDo() {
    assertThatThrownBy(() -> MastersOption.resolve(null, "", null))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("--masters")
        .hasMessageContaining("NYALA_MASTERS")
        .hasMessageContaining("NYALA_CLIENT_CONFIG")
        .hasMessageContaining("local-cluster");
  }
}
