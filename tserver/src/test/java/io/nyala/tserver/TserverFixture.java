package io.nyala.tserver;

import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.net.TestPorts;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowBlock;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.rpc.Channels;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Real tablet servers on loopback for tests, and a few lines per RPC to drive them. */
public final class TserverFixture implements AutoCloseable {
  public static final Schema SCHEMA = new Schema(List.of(
      ColumnSchema.builder("id", Type.INT32).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));

  private final Channels channels = new Channels();

  /** See {@link TestPorts}: never from the ephemeral range. */
  public static int freePort() {
    return TestPorts.freePort();
  }

  public static TserverOptions options(Path dir, int raftPort) {
    TserverOptions o = new TserverOptions();
    o.fsWalDir = dir.toString();
    o.rpcBindAddresses = "127.0.0.1:0";
    o.raftBindAddress = "127.0.0.1:" + raftPort;
    o.webserverPort = 0;
    o.raftElectionTimeoutMinMs = 500;
    o.raftElectionTimeoutMaxMs = 1000;
    o.serverName = "ts-" + dir.getFileName();
    // These servers are restarted to test what a start does with awake groups (log replay,
    // recovery, damage found at start); a clean stop would first hibernate their quiet groups
    // and the restart would open none (docs/dense-nodes.md, "A clean stop leaves quiet groups
    // cold"). Tests of that step set it back (CleanStopHibernationTest).
    o.tabletHibernateOnStopMs = 0;
    return o;
  }

  public static TabletServer start(TserverOptions o) {
    TabletServer ts = new TabletServer(o);
    ts.start();
    return ts;
  }

  public static RaftPeerPB peer(TabletServer ts) {
    return RaftPeerPB.newBuilder().setUuid(ts.uuid()).setRaftAddress(ts.raftAddress().toPb())
        .setRpcAddress(ts.rpcAddress().toPb()).build();
  }

  public static CreateTabletRequestPB createRequest(String tabletId, List<TabletServer> replicas) {
    CreateTabletRequestPB.Builder b = CreateTabletRequestPB.newBuilder()
        .setTableId(RaftIds.newId()).setTableName("t").setTabletId(tabletId)
        .setSchema(SCHEMA.toPb());
    replicas.forEach(ts -> b.addPeers(peer(ts)));
    return b.build();
  }

  public TabletServerServiceGrpc.TabletServerServiceBlockingStub data(TabletServer ts) {
    return TabletServerServiceGrpc.newBlockingStub(channels.get(ts.rpcAddress()));
  }

  /** The data service of {@code ts}, called without waiting (many calls in flight at once). */
  public TabletServerServiceGrpc.TabletServerServiceFutureStub dataAsync(TabletServer ts) {
    return TabletServerServiceGrpc.newFutureStub(channels.get(ts.rpcAddress()));
  }

  public TabletServerAdminServiceGrpc.TabletServerAdminServiceBlockingStub admin(HostPort addr) {
    return TabletServerAdminServiceGrpc.newBlockingStub(channels.get(addr));
  }

  public void createTablet(String tabletId, List<TabletServer> replicas) {
    for (TabletServer ts : replicas) {
      var resp = admin(ts.rpcAddress()).createTablet(createRequest(tabletId, replicas));
      if (NyalaException.isError(resp.getError())) {
        throw NyalaException.fromPb(resp.getError());
      }
    }
  }

  public static TabletServer awaitLeader(String tabletId, List<TabletServer> servers) {
    TabletServer[] leader = new TabletServer[1];
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      for (TabletServer ts : servers) {
        if (!ts.isClosed() && ts.raftServer().getDivision(RaftIds.groupId(tabletId))
            .getInfo().isLeaderReady()) {
          leader[0] = ts;
          return true;
        }
      }
      return false;
    });
    return leader[0];
  }

  public static WriteRequestPB inserts(String tabletId, int from, int to, RowOpType type) {
    List<RowOperations.Op> ops = new ArrayList<>();
    for (int i = from; i < to; i++) {
      ops.add(new RowOperations.Op(type, SCHEMA.newPartialRow().addInt("id", i)
          .addString("v", "value-" + i)));
    }
    return WriteRequestPB.newBuilder().setTabletId(tabletId).setSchema(SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(SCHEMA, ops)).build();
  }

  /** Every path under a server's directory {@code dir} that belongs to the tablet. */
  public static List<Path> filesOf(Path dir, String tablet) throws IOException {
    String group = RaftIds.groupId(tablet).getUuid().toString();
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().contains(tablet) || p.toString().contains(group))
          .toList();
    }
  }

  public WriteResponsePB write(TabletServer ts, WriteRequestPB req) {
    return data(ts).write(req);
  }

  /** Scans the whole tablet in pages of {@code batch}; fails on any error. */
  public List<Object[]> scanAll(TabletServer ts, String tabletId, int batch) {
    ScanResponsePB r = data(ts).scan(ScanRequestPB.newBuilder()
        .setNewScanRequest(NewScanRequestPB.newBuilder().setTabletId(tabletId))
        .setBatchSizeRows(batch).build());
    List<Object[]> rows = new ArrayList<>();
    int seq = 1;
    while (true) {
      if (NyalaException.isError(r.getError())) {
        throw NyalaException.fromPb(r.getError());
      }
      rows.addAll(RowBlock.decode(Schema.fromPb(r.getProjection()), r.getData()));
      if (!r.getHasMoreResults()) {
        return rows;
      }
      r = data(ts).scan(ScanRequestPB.newBuilder().setScannerId(r.getScannerId())
          .setCallSeqId(seq++).setBatchSizeRows(batch).build());
    }
  }

  public static ByteString clientId() {
    byte[] b = new byte[16];
    new java.util.Random().nextBytes(b);
    return ByteString.copyFrom(b);
  }

  @Override
  public void close() {
    channels.close();
  }
}
