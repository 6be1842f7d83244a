package io.nyala.client.fake;

import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
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

  /** @return the number of rows stored */
  public synchronized int rowCount() {
    return rows.size();
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
