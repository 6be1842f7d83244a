package io.nyala.client.locations;

import io.nyala.common.HostPort;
import io.nyala.common.partition.RangeBounds;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * A tablet as the client sees it: its partition key range, its replicas and which of them leads.
 * The range and replicas are fixed (fresh locations make a new object); only the leader guess
 * changes, as tablet servers correct it.
 */
public final class RemoteTablet {
  private final String tabletId;
  private final byte[] partitionKeyStart;
  /** Exclusive; empty = unbounded. */
  private final byte[] partitionKeyEnd;
  private final List<Integer> hashBuckets;
  /** The tablet's range partition, or null if the table has none (or the master sent none). */
  private final RangeBounds range;
  private final List<Replica> replicas;
  private final long expiresAtNanos;
  /** Uuid of the replica believed to lead, or null if unknown. */
  private volatile String leaderUuid;

  /**
   * A tablet with explicit contents (tests build these directly).
   *
   * @param tabletId the tablet's id
   * @param partition its partition (key range and hash buckets)
   * @param replicas its replicas; the one with role LEADER is taken as leader
   * @param expiresAtNanos {@link System#nanoTime()} after which the entry is stale
   */
  public RemoteTablet(String tabletId, PartitionPB partition, List<Replica> replicas,
      long expiresAtNanos) {
    this.tabletId = tabletId;
    this.partitionKeyStart = partition.getPartitionKeyStart().toByteArray();
    this.partitionKeyEnd = partition.getPartitionKeyEnd().toByteArray();
    this.hashBuckets = List.copyOf(partition.getHashBucketsList());
    this.range = partition.hasRange() ? RangeBounds.fromPb(partition.getRange()) : null;
    this.replicas = List.copyOf(replicas);
    this.expiresAtNanos = expiresAtNanos;
    for (Replica r : replicas) {
      if (r.role() == RaftRolePB.LEADER) {
        leaderUuid = r.uuid();
      }
    }
  }

  /**
   * Builds a tablet from the master's answer; replicas without an RPC address are left out
   * since they cannot be called.
   *
   * @param pb one tablet's locations
   * @param resp the whole response, for interned tablet server infos
   * @param expiresAtNanos when the entry goes stale
   * @return the tablet
   */
  static RemoteTablet fromPb(TabletLocationsPB pb, GetTableLocationsResponsePB resp,
      long expiresAtNanos) {
    List<Replica> replicas = new ArrayList<>();
    for (TabletLocationsPB.ReplicaPB r : pb.getReplicasList()) {
      TSInfoPB ts = r.hasTsInfo() ? r.getTsInfo()
          : r.getTsInfoIdx() >= 0 && r.getTsInfoIdx() < resp.getTsInfosCount()
              ? resp.getTsInfos(r.getTsInfoIdx()) : null;
      if (ts == null || !ts.hasRpcAddress() || ts.getRpcAddress().getHost().isEmpty()) {
        continue;
      }
      replicas.add(new Replica(ts.getUuid(), HostPort.fromPb(ts.getRpcAddress()), r.getRole()));
    }
    return new RemoteTablet(pb.getTabletId(), pb.getPartition(), replicas, expiresAtNanos);
  }

  /** @return the tablet's id */
  public String id() {
    return tabletId;
  }

  /** @return the inclusive start of the tablet's partition key range (a copy) */
  public byte[] partitionKeyStart() {
    return partitionKeyStart.clone();
  }

  /** @return the exclusive end of the range, empty if unbounded (a copy) */
  public byte[] partitionKeyEnd() {
    return partitionKeyEnd.clone();
  }

  /** @return the tablet's bucket in each hash dimension, if the master sent them */
  public List<Integer> hashBuckets() {
    return hashBuckets;
  }

  /** @return the tablet's range partition, or null if the table is not range partitioned */
  public RangeBounds range() {
    return range;
  }

  /** @return the replicas, in the master's order */
  public List<Replica> replicas() {
    return replicas;
  }

  /**
   * @param key a partition key
   * @return whether the key falls in this tablet's range
   */
  public boolean covers(byte[] key) {
    return Arrays.compareUnsigned(key, partitionKeyStart) >= 0
        && (partitionKeyEnd.length == 0 || Arrays.compareUnsigned(key, partitionKeyEnd) < 0);
  }

  /**
   * @param nowNanos the current {@link System#nanoTime()}
   * @return whether the master's time-to-live for this entry has passed
   */
  public boolean expired(long nowNanos) {
    return nowNanos - expiresAtNanos >= 0;
  }

  /** @return the replica believed to lead, or null if unknown */
  public Replica leader() {
    String u = leaderUuid;
    return u == null ? null : replica(u);
  }

  /**
   * @param uuid a tablet server uuid
   * @return this tablet's replica on that server, or null
   */
  public Replica replica(String uuid) {
    for (Replica r : replicas) {
      if (r.uuid().equals(uuid)) {
        return r;
      }
    }
    return null;
  }

  /**
   * Records that a replica leads (it served a leader-only call, or another replica named it).
   *
   * @param uuid the leader's tablet server uuid
   * @return false if no replica of this tablet is on that server, so the guess is unchanged
   */
  public boolean setLeader(String uuid) {
    if (replica(uuid) == null) {
      return false;
    }
    leaderUuid = uuid;
    return true;
  }

  /**
   * Forgets the leader if it is the given replica (it said it is not, or could not be reached).
   *
   * @param uuid the replica's tablet server uuid
   */
  public void demoteLeader(String uuid) {
    if (uuid.equals(leaderUuid)) {
      leaderUuid = null;
    }
  }

  /**
   * The replica to call next: the leader unless it is to be avoided, else the first replica not
   * avoided. When every replica has been avoided the set is cleared and the round starts over,
   * so a caller keeps cycling through replicas until its deadline.
   *
   * @param avoid uuids that failed in this call; may be cleared
   * @return the replica, or null if the tablet has no replicas
   */
  public Replica pickReplica(Set<String> avoid) {
    if (replicas.isEmpty()) {
      return null;
    }
    if (avoid.containsAll(replicas.stream().map(Replica::uuid).toList())) {
      avoid.clear();
    }
    Replica l = leader();
    if (l != null && !avoid.contains(l.uuid())) {
      return l;
    }
    for (Replica r : replicas) {
      if (!avoid.contains(r.uuid())) {
        return r;
      }
    }
    return replicas.get(0);
  }

  @Override
  public String toString() {
    HexFormat hex = HexFormat.of();
    return "tablet " + tabletId + " [0x" + hex.formatHex(partitionKeyStart) + ", "
        + (partitionKeyEnd.length == 0 ? "end" : "0x" + hex.formatHex(partitionKeyEnd)) + ")";
  }
}
