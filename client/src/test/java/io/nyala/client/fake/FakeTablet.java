package io.nyala.client.fake;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** One tablet of the fake cluster: its replicas, its leader and its rows. */
public final class FakeTablet {
  final String id;
  final FakeCluster.FakeTable table;
  final PartitionPB partition;
  final List<FakeTabletServer> replicas;
  volatile FakeTabletServer leader;
  /** The leader the master reports, if it lags behind {@link #leader}; null = up to date. */
  volatile FakeTabletServer staleMasterView;
  /** The master reports no leader, as for a hibernated tablet (docs/dense-nodes.md). */
  volatile boolean noLeaderInMaster;
  /** Rows by encoded primary key, full schema width. Guarded by this. */
  final TreeMap<byte[], Object[]> rows = new TreeMap<>(Arrays::compareUnsigned);
  /** Exactly-once: responses by (client id, seq_no). Guarded by this. */
  final Map<String, WriteResponsePB> retryCache = new HashMap<>();
  /** The "Raft index" of the last applied write. Guarded by this. */
  long writeIndex;
  /** How many writes were applied (retries served from the cache excluded). Guarded by this. */
  int appliedWrites;

  FakeTablet(String id, FakeCluster.FakeTable table, PartitionPB partition,
      List<FakeTabletServer> replicas) {
    this.id = id;
    this.table = table;
    this.partition = partition;
    this.replicas = List.copyOf(replicas);
    this.leader = replicas.get(0);
  }

  /** @return the tablet's id */
  public String id() {
    return id;
  }

  /** @return its replicas' servers */
  public List<FakeTabletServer> replicas() {
    return replicas;
  }

  /** @return the server whose replica leads */
  public FakeTabletServer leader() {
    return leader;
  }

  /** @param ts the new leader (must hold a replica) */
  public void setLeader(FakeTabletServer ts) {
    if (!replicas.contains(ts)) {
      throw new IllegalArgumentException(ts.uuid() + " holds no replica of " + id);
    }
    leader = ts;
  }

  /** @param ts the leader the master keeps reporting until cleared with null */
  public void setStaleMasterView(FakeTabletServer ts) {
    staleMasterView = ts;
  }

  /**
   * @param none whether the master's locations name no leader (every replica a follower), as
   *     for a hibernated tablet
   */
  public void setNoLeaderInMaster(boolean none) {
    noLeaderInMaster = none;
  }

  FakeTabletServer leaderAsMasterSees() {
    if (noLeaderInMaster) {
      return null;
    }
    FakeTabletServer v = staleMasterView;
    return v != null ? v : leader;
  }

  /**
   * Applies one row operation to the rows, as the tablet's leader would; the caller holds the
   * monitor for the whole write.
   *
   * @return the row's error (ALREADY_PRESENT, NOT_FOUND), or null if it applied
   */
  synchronized ErrorPB apply(Schema schema, RowOperations.Op op) {
    PartialRow row = op.row();
    byte[] key = KeyEncoder.encode(schema.keyColumns(), row.valuesUnsafe());
    Object[] existing = rows.get(key);
    switch (op.type()) {
      case INSERT, INSERT_IGNORE -> {
        if (existing == null) {
          rows.put(key, fill(schema, row));
        } else if (op.type() == RowOpType.INSERT) {
          return NyalaException.alreadyPresent("key %s already present in tablet %s", row, id)
              .toPb();
        }
      }
      case UPSERT -> {
        if (existing == null) {
          rows.put(key, fill(schema, row));
        } else {
          merge(schema, row, existing);
        }
      }
      case UPDATE, UPDATE_IGNORE -> {
        if (existing != null) {
          merge(schema, row, existing);
        } else if (op.type() == RowOpType.UPDATE) {
          return NyalaException.notFound("key %s not found in tablet %s", row, id).toPb();
        }
      }
      case DELETE, DELETE_IGNORE -> {
        if (existing != null) {
          rows.remove(key);
        } else if (op.type() == RowOpType.DELETE) {
          return NyalaException.notFound("key %s not found in tablet %s", row, id).toPb();
        }
      }
      default -> throw new AssertionError(op.type());
    }
    return null;
  }

  private static Object[] fill(Schema schema, PartialRow row) {
    Object[] v = new Object[schema.columnCount()];
    for (int i = 0; i < v.length; i++) {
      v[i] = row.isSet(i) ? row.get(i) : schema.column(i).defaultValue();
    }
    return v;
  }

  private static void merge(Schema schema, PartialRow row, Object[] existing) {
    for (int i = schema.keyColumnCount(); i < schema.columnCount(); i++) {
      if (row.isSet(i)) {
        existing[i] = row.get(i);
      }
    }
  }

  /** @return the number of rows stored */
  public synchronized int rowCount() {
    return rows.size();
  }

  /** @return the "Raft index" of the last applied write */
  public synchronized long writeIndex() {
    return writeIndex;
  }

  /** @return how many writes were applied */
  public synchronized int appliedWrites() {
    return appliedWrites;
  }

  /** @return the partition key range */
  public PartitionPB partition() {
    return partition;
  }
}
