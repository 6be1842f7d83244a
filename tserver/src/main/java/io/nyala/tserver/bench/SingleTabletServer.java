package io.nyala.tserver.bench;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.WrappedKey;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverOptions;
import io.nyala.tserver.replica.TabletReplica;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;

/**
 * A real tablet server (no master) in a scratch directory hosting one RF-1 tablet whose local
 * replica leads: what the benchmarks drive. Ratis runs with unsafe flush (no fsync of the log)
 * unless {@code fsync}; auto snapshots are off so the whole log stays readable.
 */
public final class SingleTabletServer implements AutoCloseable {
  /** {@code (id INT32 key, v STRING)}. */
  public static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("id", Type.INT32).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));
  private static final long LEADER_WAIT_MS = 30_000;

  private final TabletServer server;
  private final String tabletId;

  private SingleTabletServer(TabletServer server, String tabletId) {
    this.server = server;
    this.tabletId = tabletId;
  }

  /** Starts the server in {@code dir} and waits until its tablet's replica leads. */
  public static SingleTabletServer start(Path dir, boolean encrypt, boolean fsync) {
    return start(dir, encrypt, fsync, true);
  }

  /**
   * The same; without {@code maintenance} the store flushes only when the caller asks and never
   * compacts, so a benchmark keeps every layer it flushed.
   */
  public static SingleTabletServer start(Path dir, boolean encrypt, boolean fsync,
      boolean maintenance) {
    TserverOptions o = new TserverOptions();
    o.enableMaintenanceManager = maintenance;
    o.fsWalDir = dir.resolve("ts").toString();
    o.rpcBindAddresses = "127.0.0.1:0";
    o.raftBindAddress = "127.0.0.1:" + freePort();
    o.webserverPort = -1;
    o.serverName = "bench-ts";
    o.raftElectionTimeoutMinMs = 150;
    o.raftElectionTimeoutMaxMs = 300;
    o.raftProperties.put(RaftServerConfigKeys.Log.UNSAFE_FLUSH_ENABLED_KEY,
        Boolean.toString(!fsync));
    // Ratis steps a leader down after a JVM pause over 10 s; with one replica that only fails
    // the writes in flight (NOT_LEADER) until it elects itself again. Long runs on a busy box
    // do pause that long in full GCs, which the benchmarks report instead.
    o.raftProperties.put(RaftServerConfigKeys.LeaderElection.LEADER_STEP_DOWN_WAIT_TIME_KEY,
        "1h");
    if (encrypt) {
      o.encryptDataAtRest = true;
      o.encryptionKeyFile = dir.resolve("cluster.key").toString();
    }
    TabletServer ts = new TabletServer(o);
    ts.start();
    try {
      String tabletId = RaftIds.newId();
      ts.tabletManager().createTablet(createRequest(ts, tabletId, encrypt)).join();
      SingleTabletServer s = new SingleTabletServer(ts, tabletId);
      s.awaitLeader();
      return s;
    } catch (RuntimeException e) {
      ts.close();
      throw e;
    }
  }

  private static CreateTabletRequestPB createRequest(TabletServer ts, String tabletId,
      boolean encrypt) {
    RaftPeerPB self = RaftPeerPB.newBuilder().setUuid(ts.uuid())
        .setRaftAddress(ts.raftAddress().toPb()).setRpcAddress(ts.rpcAddress().toPb()).build();
    CreateTabletRequestPB.Builder b = CreateTabletRequestPB.newBuilder()
        .setTableId(RaftIds.newId()).setTableName("bench").setTabletId(tabletId)
        .setSchema(SCHEMA.toPb()).addPeers(self);
    if (encrypt) {
      // What the master would send: a fresh tablet key wrapped by the cluster key.
      WrappedKey w = ts.keyProvider().wrapServerKey(KeyMaterial.random(256));
      b.setWrappedTabletKey(com.google.protobuf.ByteString.copyFrom(w.wrapped()))
          .setTabletKeyVersion(w.clusterKeyVersion());
    }
    return b.build();
  }

  private void awaitLeader() {
    long deadline = System.nanoTime() + LEADER_WAIT_MS * 1_000_000;
    while (true) {
      try {
        if (server.raftServer().getDivision(groupId()).getInfo().isLeaderReady()) {
          return;
        }
      } catch (IOException e) {
        // The group is still being added.
      }
      if (System.nanoTime() > deadline) {
        throw NyalaException.timedOut("tablet %s: no ready leader after %d ms", tabletId,
            LEADER_WAIT_MS);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw NyalaException.unavailable("interrupted while waiting for tablet %s", tabletId);
      }
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw NyalaException.ioError("cannot find a free port: " + e.getMessage(), e);
    }
  }

  public TabletServer server() {
    return server;
  }

  public RaftServer raftServer() {
    return server.raftServer();
  }

  public String tabletId() {
    return tabletId;
  }

  public RaftGroupId groupId() {
    return RaftIds.groupId(tabletId);
  }

  /** The tablet's replica on this server. */
  public TabletReplica replica() {
    return server.tabletManager().get(tabletId);
  }

  /** The division of the tablet's group on this server. */
  public RaftServer.Division division() {
    try {
      return raftServer().getDivision(groupId());
    } catch (IOException e) {
      throw NyalaException.ioError("tablet " + tabletId + ": no Raft division: " + e, e);
    }
  }

  @Override
  public void close() {
    server.close();
  }
}
