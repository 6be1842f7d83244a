package io.nyala.client;

import io.nyala.client.fake.FakeCluster;
import io.nyala.client.fake.FakeTablet;
import io.nyala.client.fake.FakeTabletServer;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fake cluster plus a client connected to it, and shortcuts for the usual table
 * ({@code key INT64 KEY, val STRING}), so a test reads as its scenario.
 */
final class ClientFixture implements AutoCloseable {
  final FakeCluster cluster;
  final NyalaClient client;

  ClientFixture(int masters, int tservers) {
    this(masters, tservers, b -> { });
  }

  ClientFixture(int masters, int tservers, Consumer<NyalaClient.Builder> options) {
    cluster = new FakeCluster(masters, tservers);
    NyalaClient.Builder b = NyalaClient.builder(cluster.masterAddresses())
        .defaultOperationTimeoutMs(10_000).defaultAdminOperationTimeoutMs(10_000);
    options.accept(b);
    client = b.build();
  }

  static Schema schema() {
    return new Schema(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("val", Type.STRING).build()));
  }

  /** A table hashed into {@code buckets} tablets (1 = unpartitioned). */
  NyalaTable createTable(String name, int buckets, int replicas) {
    CreateTableOptions o = new CreateTableOptions().setNumReplicas(replicas);
    if (buckets > 1) {
      o.addHashPartitions(List.of("key"), buckets);
    }
    return client.createTable(name, schema(), o);
  }

  static Operation insert(NyalaTable t, long key, String val) {
    Operation op = t.newInsert();
    op.getRow().addLong("key", key).addString("val", val);
    return op;
  }

  /** Inserts keys [from, to) with val "v<key>", failing the test on any row error. */
  void insertRange(NyalaTable t, long from, long to) {
    try (NyalaSession s = client.newSession()) {
      s.setFlushMode(NyalaSession.FlushMode.MANUAL_FLUSH);
      s.setMutationBufferSpace((int) (to - from) + 1);
      for (long k = from; k < to; k++) {
        s.apply(insert(t, k, "v" + k));
      }
      for (OperationResponse r : s.flush()) {
        if (r.hasRowError()) {
          throw new AssertionError(r.getRowError().toString());
        }
      }
    }
  }

  static List<Long> keys(Iterable<RowResult> rows) {
    List<Long> out = new ArrayList<>();
    for (RowResult r : rows) {
      out.add(r.getLong("key"));
    }
    return out;
  }

  FakeTablet tablet(String table, int index) {
    return cluster.table(table).tablets().get(index);
  }

  FakeTabletServer ts(int index) {
    return cluster.tservers().get(index);
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      cluster.close();
    }
  }
}
