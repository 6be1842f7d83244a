package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.env.TestBytes;
import io.nyala.common.proto.master.CreateTableResponsePB;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyEnvelope;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.WalSealer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sys catalog seals its entries under random keys wrapped by the cluster key, never under
 * one derived from it (docs/encryption.md): two catalogs sharing a cluster key never share a
 * keystream, and restarted and follower masters still open every entry.
 */
@Timeout(90)
class CatalogKeyTest {
  @TempDir
  Path dir;

  private String[] encryption() {
    return new String[] {"--encrypt_data_at_rest",
        "--encryption_key_file=" + dir.resolve("cluster.key")};
  }

  @Test
  void twoCatalogsUnderOneClusterKeyNeverShareAKeystreamAndARestartReadsBoth() throws Exception {
    List<FakeTServer> tservers = new ArrayList<>();
    try (MasterFixture a = MasterFixture.start(dir.resolve("a"), encryption());
        MasterFixture b = MasterFixture.start(dir.resolve("b"), encryption())) {
      long term = a.master.catalog().catalog().leaderTerm();
      assertThat(b.master.catalog().catalog().leaderTerm()).isEqualTo(term);
      // Each catalog's first entry (its cluster id), sealed at (term, counter 0) in both.
      byte[] first = firstSealed(dir.resolve("a"), term);
      byte[] second = firstSealed(dir.resolve("b"), term);
      int ct = first.length - 4;
      assertThat(Arrays.copyOfRange(first, ct, ct + 4))
          .as("ciphertext of two catalogs under one (key, nonce): the keystream was reused")
          .isNotEqualTo(Arrays.copyOfRange(second, ct, ct + 4));
      FileKeyProvider provider = FileKeyProvider.open(dir.resolve("cluster.key"));
      assertThat(keyOf(provider, first)).isNotEqualTo(keyOf(provider, second));

      for (int i = 0; i < 3; i++) {
        tservers.add(new FakeTServer("ts-" + i));
        tservers.get(i).register(a.stub());
      }
      assertThat(a.stub().createTable(Tables.create("before", 1, 3)).hasError()).isFalse();
      String clusterId = clusterId(a);
      a.restart();
      assertThat(clusterId(a)).isEqualTo(clusterId);
      assertThat(hasTable(a.master, "before")).isTrue();
      tservers.forEach(t -> t.register(a.stub()));
      assertThat(a.stub().createTable(Tables.create("after", 1, 3)).hasError()).isFalse();
    } finally {
      tservers.forEach(FakeTServer::close);
    }
  }

  @Test
  void followerMastersOpenEntriesOfEveryLeadersKey() throws Exception {
    List<FakeTServer> tservers = new ArrayList<>();
    try (MastersFixture f = MastersFixture.start(dir, 3, encryption())) {
      int leader = f.awaitLeader();
      for (int i = 0; i < 3; i++) {
        tservers.add(new FakeTServer("ts-" + i));
        tservers.get(i).register(f.stub(leader));
      }
      CreateTableResponsePB r = f.stub(leader).createTable(Tables.create("t0", 1, 3));
      assertThat(r.hasError()).as("%s", r.getError()).isFalse();
      // Every follower holds an entry sealed under the first leader's key before it goes.
      f.awaitEveryMasterHolds("t0");
      f.stopMaster(leader);
      int next = f.awaitLeader();
      tservers.forEach(t -> t.register(f.stub(next)));
      r = f.stub(next).createTable(Tables.create("t1", 1, 3));
      assertThat(r.hasError()).as("%s", r.getError()).isFalse();
      f.startMaster(leader);
      for (int i = 0; i < 3; i++) {
        MasterServer m = f.master(i);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
          assertThat(hasTable(m, "t0")).isTrue();
          assertThat(hasTable(m, "t1")).isTrue();
        });
      }
    } finally {
      tservers.forEach(FakeTServer::close);
    }
  }

  /**
   * The first sealed payload of {@code term}, counter 0, found in the raw Raft log files under
   * {@code masterDir}: from its {@link WalSealer} header to the end of its ciphertext's first
   * bytes (the header is in the clear in every format), with what precedes it.
   */
  private static byte[] firstSealed(Path masterDir, long term) throws IOException {
    byte[] header = ByteBuffer.allocate(WalSealer.HEADER_BYTES).put(WalSealer.VERSION)
        .putLong(term).putLong(0).array();
    try (Stream<Path> files = Files.walk(masterDir)) {
      for (Path p : files.filter(p -> p.getFileName().toString().startsWith("log_")).toList()) {
        byte[] raw = Files.readAllBytes(p);
        int at = TestBytes.indexOf(raw, header);
        if (at >= 0) {
          return Arrays.copyOfRange(raw, Math.max(0, at - 64), at + header.length + 4);
        }
      }
    }
    throw new AssertionError("no sealed catalog entry of term " + term + " under " + masterDir);
  }

  /** Unwraps the key of the {@link KeyEnvelope} that ends right before the sealed header. */
  private static KeyMaterial keyOf(FileKeyProvider provider, byte[] sealed) {
    int headerAt = sealed.length - 4 - WalSealer.HEADER_BYTES;
    for (int start = headerAt - 1; start >= 0; start--) {
      if (sealed[start] == KeyEnvelope.VERSION) {
        try {
          KeyEnvelope.Parsed p = KeyEnvelope.parse("test", Arrays.copyOfRange(sealed, start,
              sealed.length));
          if (start + p.bodyOffset() == headerAt) {
            return provider.unwrapServerKey(p.key(), "catalog payload key");
          }
        } catch (RuntimeException e) {
          // Not the envelope's first byte: keep looking.
        }
      }
    }
    throw new AssertionError("no key envelope before the sealed catalog entry");
  }

  private static boolean hasTable(MasterServer m, String name) {
    return m.catalog().catalog().read(s -> s.tableByName(name) != null);
  }

  private static String clusterId(MasterFixture m) {
    return m.stub().getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance())
        .getClusterId();
  }
}
