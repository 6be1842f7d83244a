package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaScanToken;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.client.ReadMode;
import io.nyala.client.RowResult;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.NyalaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a snapshot over several tablets promises (docs/architecture.md, "Consistent reads"),
 * checked while transfers run. Each writer moves one unit per transfer: it writes a debit row,
 * waits for its acknowledgement, then writes a credit row, the two usually in different
 * tablets. A snapshot chosen by a token build must hold every transfer acknowledged before the
 * build began, nothing written after it returned, and in each tablet a prefix of what each
 * writer wrote there; so its total is off by at most the transfers in flight during the build.
 * It is not promised to be zero: a snapshot is one Raft index per tablet, not one cut across
 * them.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@NyalaCluster(tservers = 3, lifecycle = NyalaCluster.Lifecycle.PER_CLASS)
class SnapshotTransfersIT {
  private static final int WRITERS = 2;
  private static final int ROUNDS = 6;

  /** One snapshot's rows by tablet, with what the writers had done around its build. */
  private record Round(Map<String, List<String>> keysByTablet, long[] doneBefore,
      long[] startedAfter) {}

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  void everySnapshotHoldsTransfersAcknowledgedBeforeItAndPrefixesOfEachTablet(
      NyalaClient client) throws Exception {
    Schema schema = Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.STRING).key(true).build(),
        ColumnSchema.builder("amount", Type.INT64).nullable(false).build()));
    NyalaTable table = client.createTable("transfers", schema, new CreateTableOptions()
        .addHashPartitions(List.of("key"), 3).setNumReplicas(3));
    AtomicLongArray started = new AtomicLongArray(WRITERS);
    AtomicLongArray done = new AtomicLongArray(WRITERS);
    for (int w = 0; w < WRITERS; w++) {
      started.set(w, -1);
      done.set(w, -1);
    }
    AtomicBoolean stop = new AtomicBoolean();
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      writers.add(CompletableFuture.runAsync(() -> {
        for (long i = 0; !stop.get(); i++) {
          started.set(writer, i);
          write(client, table, key(writer, i, 'd'), -1);
          write(client, table, key(writer, i, 'c'), 1);
          done.set(writer, i);
        }
      }));
    }
    List<Round> rounds = new ArrayList<>();
    try {
      for (int r = 0; r < ROUNDS; r++) {
        long[] doneBefore = snapshot(done);
        List<NyalaScanToken> tokens = client.newScanTokenBuilder(table)
            .readMode(ReadMode.READ_AT_SNAPSHOT).build();
        long[] startedAfter = snapshot(started);
        rounds.add(new Round(scanByTablet(client, tokens), doneBefore, startedAfter));
        Awaitility.await().atMost(Duration.ofSeconds(30))
            .until(() -> done.get(0) > startedAfter[0]);
      }
    } finally {
      stop.set(true);
      CompletableFuture.allOf(writers.toArray(new CompletableFuture<?>[0]))
          .get(60, TimeUnit.SECONDS);
    }
    Map<String, List<String>> all = scanByTablet(client, client.newScanTokenBuilder(table)
        .build());
    for (int r = 0; r < rounds.size(); r++) {
      check(r, rounds.get(r), all);
    }
  }

  private static void check(int r, Round round, Map<String, List<String>> all) {
    long total = 0;
    long inFlight = 0;
    Map<String, Boolean> seen = new HashMap<>();
    for (List<String> keys : round.keysByTablet().values()) {
      for (String k : keys) {
        seen.put(k, true);
        total += k.endsWith("c") ? 1 : -1;
        assertThat(transfer(k)).as("round %d: %s was written after the build", r, k)
            .isLessThanOrEqualTo(round.startedAfter()[writer(k)]);
      }
    }
    for (int w = 0; w < WRITERS; w++) {
      for (long i = 0; i <= round.doneBefore()[w]; i++) {
        assertThat(seen).as("round %d: transfer %d of writer %d acknowledged before", r, i, w)
            .containsKeys(key(w, i, 'd'), key(w, i, 'c'));
      }
      inFlight += round.startedAfter()[w] - round.doneBefore()[w];
    }
    assertThat(Math.abs(total)).as("round %d: total", r).isLessThanOrEqualTo(inFlight);
    // Each tablet shows a prefix of what each writer wrote to it.
    for (Map.Entry<String, List<String>> e : round.keysByTablet().entrySet()) {
      TreeSet<String> visible = new TreeSet<>(e.getValue());
      for (int w = 0; w < WRITERS; w++) {
        String last = null;
        for (String k : visible) {
          if (writer(k) == w) {
            last = k;
          }
        }
        for (String k : all.getOrDefault(e.getKey(), List.of())) {
          if (last != null && writer(k) == w && k.compareTo(last) < 0) {
            assertThat(visible).as("round %d, tablet %s: %s before %s", r, e.getKey(), k, last)
                .contains(k);
          }
        }
      }
    }
  }

  private static long[] snapshot(AtomicLongArray a) {
    long[] out = new long[a.length()];
    for (int i = 0; i < out.length; i++) {
      out[i] = a.get(i);
    }
    return out;
  }

  /** Scans each token through its serialized form; the keys it returned, by tablet. */
  private static Map<String, List<String>> scanByTablet(NyalaClient client,
      List<NyalaScanToken> tokens) {
    Map<String, List<String>> out = new HashMap<>();
    for (NyalaScanToken t : tokens) {
      List<String> keys = new ArrayList<>();
      for (RowResult row : NyalaScanToken.deserializeIntoScanner(t.serialize(), client)) {
        keys.add(row.getString("key"));
      }
      out.put(t.tabletId(), keys);
    }
    return out;
  }

  /** Keys sort in write order per writer: transfer number, then debit before credit. */
  private static String key(int writer, long transfer, char side) {
    return String.format("w%d-%08d-%c", writer, transfer, side == 'd' ? 'a' : 'c');
  }

  private static int writer(String key) {
    return key.charAt(1) - '0';
  }

  private static long transfer(String key) {
    return Long.parseLong(key.substring(3, 11));
  }

  private static void write(NyalaClient client, NyalaTable table, String key, long amount) {
    try (NyalaSession s = client.newSession()) {
      Operation op = table.newUpsert();
      op.getRow().addString("key", key).addLong("amount", amount);
      OperationResponse r = s.apply(op);
      assertThat(r.hasRowError()).as("%s", r.getRowError()).isFalse();
    }
  }
}
