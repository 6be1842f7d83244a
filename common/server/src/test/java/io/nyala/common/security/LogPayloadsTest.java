package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LogPayloadsTest {
  @TempDir
  Path dir;

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

  @Test
  void wrappedPayloadsUseAFreshKeyPerCatalogAndTermThatAnyHolderOfTheClusterKeyOpens() {
    FileKeyProvider provider = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    LogPayloads one = LogPayloads.wrapped("sys-catalog", provider, 256);
    LogPayloads two = LogPayloads.wrapped("sys-catalog", provider, 256);
    byte[] a1 = one.seal(1, ROW);
    byte[] a1b = one.seal(1, ROW);
    byte[] b1 = two.seal(1, ROW);
    byte[] a2 = one.seal(2, ROW);
    assertThat(keyOf(provider, a1)).isEqualTo(keyOf(provider, a1b));
    assertThat(keyOf(provider, a1)).isNotEqualTo(keyOf(provider, b1))
        .isNotEqualTo(keyOf(provider, a2));
    assertThat(new String(a1, StandardCharsets.ISO_8859_1)).doesNotContain("NYALA-PLAINTEXT");
    // A restarted master, or a follower: only the cluster key in common.
    LogPayloads reader = LogPayloads.wrapped("sys-catalog", provider, 256);
    for (byte[] sealed : List.of(a1, a1b, b1, a2)) {
      assertThat(reader.open(sealed)).isEqualTo(ROW);
    }
    FileKeyProvider other = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    assertThatThrownBy(() -> LogPayloads.wrapped("sys-catalog", other, 256).open(a1))
        .hasMessageContaining("sys-catalog");
  }

  @Test
  void aRotationMidTermWrapsTheTermKeyUnderTheNewVersionAndAFollowerFindsIt() {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider leaderKeys = FileKeyProvider.openOrCreate(f, 256);
    FileKeyProvider followerKeys = FileKeyProvider.open(f);
    LogPayloads leader = LogPayloads.wrapped("sys-catalog", leaderKeys, 256);
    byte[] before = leader.seal(4, ROW);
    FileKeyProvider.addVersion(f, 256);
    leaderKeys.reload();
    byte[] after = leader.seal(4, ROW);
    assertThat(leader.envelopeVersion(before)).isEqualTo(1);
    assertThat(leader.envelopeVersion(after)).isEqualTo(2);
    assertThat(keyOf(leaderKeys, after)).as("same term key, wrapped again")
        .isEqualTo(keyOf(leaderKeys, before));
    // The follower never reloaded: the entry under version 2 makes it look the version up.
    LogPayloads follower = LogPayloads.wrapped("sys-catalog", followerKeys, 256);
    assertThat(follower.open(before)).isEqualTo(ROW);
    assertThat(follower.open(after)).isEqualTo(ROW);
    assertThat(followerKeys.currentVersion()).isEqualTo(2);
    // Once version 1 is retired, only entries under version 1 fail, naming the version.
    FileKeyProvider.retireVersionsBefore(f, 2);
    FileKeyProvider restarted = FileKeyProvider.open(f);
    LogPayloads reader = LogPayloads.wrapped("sys-catalog", restarted, 256);
    assertThat(reader.open(after)).isEqualTo(ROW);
    assertThatThrownBy(() -> reader.open(before)).hasMessageContaining("version 1");
  }

  @Test
  void aPayloadSealedUnderADerivedCatalogKeyIsRefusedClearly() {
    FileKeyProvider provider = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    byte[] old = LogPayloads.sealed("sys-catalog", provider.clusterKey(1)).seal(1, ROW);
    assertThatThrownBy(() -> LogPayloads.wrapped("sys-catalog", provider, 256).open(old))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("sys-catalog").hasMessageContaining("derived from the cluster key")
        .hasMessageContaining("re-format");
  }

  private static KeyMaterial keyOf(KeyProvider provider, byte[] sealed) {
    return provider.unwrapServerKey(KeyEnvelope.parse("t", sealed).key(), "test");
  }
}
