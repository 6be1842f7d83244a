package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LogPayloadsTest {
  private static final byte[] ROW = "row NYALA-PLAINTEXT-CANARY".getBytes(StandardCharsets.UTF_8);

  @Test
  void plainPayloadsPassThrough() {
    LogPayloads p = LogPayloads.plain("t1");
    assertThat(p.isSealing()).isFalse();
    assertThat(p.seal(3, ROW)).isSameAs(ROW);
    assertThat(p.open(ROW)).isSameAs(ROW);
  }

  @Test
  void sealedPayloadsOpenOnAnotherReplicaAndNeverRepeatANonceAcrossTerms() {
    KeyMaterial key = KeyMaterial.random(256);
    LogPayloads leader = LogPayloads.sealed("t1", key);
    LogPayloads follower = LogPayloads.sealed("t1", key);
    Set<String> termAndCounter = new HashSet<>();
    for (long term = 1; term <= 3; term++) {
      for (int i = 0; i < 5; i++) {
        byte[] sealed = leader.seal(term, ROW);
        WalSealer.Header h = WalSealer.header("t1", sealed);
        assertThat(h.term()).isEqualTo(term);
        assertThat(termAndCounter.add(h.term() + "/" + h.counter()))
            .as("nonce %s/%s used once", h.term(), h.counter()).isTrue();
        assertThat(new String(sealed, StandardCharsets.ISO_8859_1))
            .doesNotContain("NYALA-PLAINTEXT-CANARY");
        assertThat(follower.open(sealed)).isEqualTo(ROW);
      }
    }
    assertThat(termAndCounter).hasSize(15);
  }

  @Test
  void aStaleTermIsRefusedAndAWrongKeyFailsClearly() {
    LogPayloads p = LogPayloads.sealed("t1", KeyMaterial.random(128));
    byte[] sealed = p.seal(5, ROW);
    assertThatThrownBy(() -> p.seal(4, ROW)).hasMessageContaining("term 4")
        .hasMessageContaining("term 5");
    LogPayloads other = LogPayloads.sealed("t1", KeyMaterial.random(128));
    assertThatThrownBy(() -> other.open(sealed)).hasMessageContaining("t1")
        .hasMessageContaining("failed authentication");
    assertThatThrownBy(() -> other.open(ROW)).hasMessageContaining("t1");
  }
}
