package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import org.junit.jupiter.api.Test;

class MasterAddressesTest {
  @Test
  void theVariableIsTrimmed() {
    assertThat(MasterAddresses.orError(" 127.0.0.1:7051,127.0.0.1:7151\n"))
        .isEqualTo("127.0.0.1:7051,127.0.0.1:7151");
  }

  @Test
  void unsetOrEmptySaysWhatToExport() {
    for (String v : new String[] {null, "", "  "}) {
      assertThatThrownBy(() -> MasterAddresses.orError(v)).isInstanceOf(NyalaException.class)
          .hasMessageContaining("export NYALA_MASTERS=").hasMessageContaining("local-cluster");
    }
  }
}
