package io.nyala.client;

import io.nyala.client.locations.RemoteTablet;
import io.nyala.client.rpc.Deadline;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Lists a table's tablets and chooses the snapshot a build of scan tokens shares: for each
 * tablet, the index a linearizable read on its leader returns (a READ_LATEST scan of one key),
 * so every write acknowledged before the choice began is in it (docs/architecture.md,
 * "Consistent reads"). Stateless.
 */
final class SnapshotChooser {
  private SnapshotChooser() {}

  /**
   * Every tablet of a table.
   *
   * @param table the table
   * @param deadline when to give up
   * @return the tablets in partition key order
   */
  static CompletableFuture<List<RemoteTablet>> tablets(NyalaTable table, Deadline deadline) {
    return walk(table, new byte[0], new ArrayList<>(), deadline);
  }

  private static CompletableFuture<List<RemoteTablet>> walk(NyalaTable table, byte[] from,
      List<RemoteTablet> acc, Deadline deadline) {
    return table.getAsyncClient().locations(table).lookupAtOrAfter(from, deadline)
        .thenCompose(t -> {
          if (t == null) {
            return CompletableFuture.completedFuture(acc);
          }
          acc.add(t);
          byte[] end = t.partitionKeyEnd();
          return end.length == 0 ? CompletableFuture.completedFuture(acc)
              : walk(table, end, acc, deadline);
        });
  }

  /**
   * Reads each tablet's leader linearizably, all at once.
   *
   * @param table the table
   * @param tablets the tablets to choose an index for
   * @param deadline when to give up
   * @return the snapshot
   */
  static CompletableFuture<ScanSnapshot> choose(NyalaTable table, List<RemoteTablet> tablets,
      Deadline deadline) {
    Schema schema = table.getSchema();
    List<String> keys = schema.keyColumns().stream().map(ColumnSchema::name).toList();
    long timeoutMs = Math.max(1, deadline.remainingMillis());
    ScanSpec probe = new ScanSpec(keys, schema.project(keys), List.of(), List.of(), new byte[0],
        new byte[0], 1, 1, ReadMode.READ_LATEST, timeoutMs, 1, Map.of(), Map.of(), new byte[0],
        new byte[0]);
    Map<String, Long> indexes = new HashMap<>();
    List<CompletableFuture<Void>> reads = new ArrayList<>();
    for (RemoteTablet t : tablets) {
      TabletScan scan = new TabletScan(table.getAsyncClient(), table, probe, t);
      reads.add(scan.open(1, deadline).thenAccept(page -> {
        scan.close();
        synchronized (indexes) {
          indexes.put(t.id(), scan.snapIndex());
        }
      }));
    }
    return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]))
        .thenApply(ignored -> {
          synchronized (indexes) {
            return new ScanSnapshot(indexes);
          }
        });
  }
}
