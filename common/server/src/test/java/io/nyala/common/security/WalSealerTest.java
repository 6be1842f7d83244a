package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class WalSealerTest {
  private final KeyMaterial tabletKey = KeyMaterial.random(256);

  @Test
  void roundTripCarriesTermAndCounterInTheClear() {
    WalSealer s = new WalSealer("t1", tabletKey, 7);
    byte[] payload = "insert k=v".getBytes(StandardCharsets.UTF_8);
    byte[] a = s.seal(payload);
    byte[] b = s.seal(payload);
    assertThat(a).hasSize(WalSealer.HEADER_BYTES + payload.length + WalSealer.TAG_BYTES);
    assertThat(WalSealer.header("t1", a)).isEqualTo(new WalSealer.Header(1, 7, 0));
    assertThat(WalSealer.header("t1", b)).isEqualTo(new WalSealer.Header(1, 7, 1));
    assertThat(a).isNotEqualTo(b);
    assertThat(WalSealer.open("t1", tabletKey, a)).isEqualTo(payload);
    assertThat(new WalSealer("t1", tabletKey, 8).open(b)).isEqualTo(payload);
    assertThat(s.sealedCount()).isEqualTo(2);
  }

  @Test
  void noKeyNoncePairRepeatsAcrossThreeTerms() {
    Set<String> pairs = new HashSet<>();
    Set<KeyMaterial> keys = new HashSet<>();
    List<byte[]> sealed = new ArrayList<>();
    for (long term = 1; term <= 3; term++) {
      WalSealer s = new WalSealer("t1", tabletKey, term);
      KeyMaterial k = WalSealer.termKey(tabletKey, term);
      keys.add(k);
      for (int i = 0; i < 500; i++) {
        byte[] c = s.seal(new byte[] {(byte) i});
        WalSealer.Header h = WalSealer.header("t1", c);
        assertThat(h.term()).isEqualTo(term);
        assertThat(pairs.add(k.toHex() + "/" + h.counter())).as("nonce reused").isTrue();
        sealed.add(c);
      }
    }
    assertThat(keys).hasSize(3);
    assertThat(pairs).hasSize(1500);
    for (int i = 0; i < sealed.size(); i++) {
      assertThat(WalSealer.open("t1", tabletKey, sealed.get(i))).containsExactly((byte) (i % 500));
    }
  }

  @Test
  void concurrentSealsGetDistinctCounters() throws Exception {
    WalSealer s = new WalSealer("t2", tabletKey, 4);
    Set<Long> counters = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        fs.add(pool.submit(() -> {
          for (int i = 0; i < 1000; i++) {
            counters.add(WalSealer.header("t2", s.seal(new byte[8])).counter());
          }
        }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(counters).hasSize(4000);
  }

  @Test
  void tamperedPayloadOrWrongKeyIsCorruptionNamingTheTablet() {
    byte[] sealed = new WalSealer("tablet-9", tabletKey, 2).seal(new byte[40]);
    for (int i = 1; i < sealed.length; i++) {
      byte[] bad = sealed.clone();
      bad[i] ^= 0x01;
      assertThatThrownBy(() -> WalSealer.open("tablet-9", tabletKey, bad))
          .as("byte %d", i)
          .isInstanceOfSatisfying(NyalaException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
          .hasMessageContaining("tablet tablet-9");
    }
    byte[] badVersion = sealed.clone();
    badVersion[0] = 2;
    assertThatThrownBy(() -> WalSealer.open("tablet-9", tabletKey, badVersion))
        .hasMessageContaining("version 2");
    assertThatThrownBy(() -> WalSealer.open("tablet-9", KeyMaterial.random(256), sealed))
        .isInstanceOf(NyalaException.class)
        .hasMessageContaining("tablet tablet-9")
        .hasMessageContaining("failed authentication");
  }
}
