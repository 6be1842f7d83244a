package io.nyala.tserver.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.common.proto.tserver.AlterSchemaResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.RowBlock;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import io.nyala.tserver.TserverOptions;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.tablet.TabletStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALTER_SCHEMA on a real three-replica tablet, across a restart of every tablet server, and
 * under a scanner opened before it (through the Scan RPC).
 */
@Timeout(120)
class AlterSchemaTest {
  private static final ColumnSchema ID =
      ColumnSchema.builder("id", Type.INT32).key(true).build().withId(1);
  private static final ColumnSchema V = ColumnSchema.builder("v", Type.STRING).build().withId(2);
  private static final ColumnSchema N = ColumnSchema.builder("n", Type.INT64).nullable(false)
      .defaultValue(7L).build().withId(3);
  private static final ColumnSchema TMP =
      ColumnSchema.builder("tmp", Type.STRING).build().withId(4);
  private static final Schema V0 = new Schema(List.of(ID, V), 0);
  /** Renames v to label, adds n (default 7) and tmp. */
  private static final Schema V1 = new Schema(List.of(ID, V.withName("label"), N, TMP), 1);
  /** Drops tmp. */
  private static final Schema V2 = new Schema(List.of(ID, V.withName("label"), N), 2);

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TserverOptions> opts = new ArrayList<>();
  private final List<TabletServer> servers = new ArrayList<>();
  private final String tablet = RaftIds.newId();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  @Test
  void alterRenamesAddsAndDropsColumnsAndSurvivesRestart() {
    startCluster();
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    assertOk(fx.write(leader, write(V0, 0, 10, r -> {})));

    assertThat(alter(leader, V1).getSchemaVersion()).isEqualTo(1);
    assertOk(fx.write(leader, write(V1, 10, 12, r -> r.addString("tmp", "x").addLong("n", 9L))));
    assertThat(alter(leader, V2).getSchemaVersion()).isEqualTo(2);
    assertRows(leader);

    long applied = leader.tabletManager().get(tablet).stateMachine().appliedIndex();
    assertThat(alter(leader, V1).getSchemaVersion()).as("older version: no new entry").isEqualTo(2);
    assertThat(leader.tabletManager().get(tablet).stateMachine().appliedIndex())
        .isEqualTo(applied);

    WriteResponsePB renamed = fx.write(leader, write(V0, 20, 21, r -> {}));
    assertThat(renamed.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(renamed.getError().getMessage()).contains("'v'").contains("version 2");
    WriteResponsePB dropped = fx.write(leader, write(V1, 20, 21, r -> r.addString("tmp", "y")));
    assertThat(dropped.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(dropped.getError().getMessage()).contains("'tmp'");

    // The leader restarts from a snapshot holding schema 2, the others replay the whole log
    // from the initial schema.
    assertThat(leader.snapshotTablet(tablet)).isPositive();
    for (int i = 0; i < servers.size(); i++) {
      servers.get(i).close();
    }
    for (int i = 0; i < servers.size(); i++) {
      servers.set(i, TserverFixture.start(opts.get(i)));
    }
    leader = TserverFixture.awaitLeader(tablet, servers);
    assertRows(leader);
    for (TabletServer ts : servers) {
      TabletReplica r = ts.tabletManager().get(tablet);
      assertThat(r.metadata().getSchema().getVersion()).isEqualTo(2);
      assertThat(r.metadata().getTableName()).isEqualTo("renamed");
      assertThat(r.metadata().getInitialSchema().getVersion()).isZero();
    }
    assertOk(fx.write(leader, write(V2, 12, 13, r -> r.addString("label", "new"))));
    assertThat(fx.scanAll(leader, tablet, 100)).hasSize(13);
  }

  @Test
  void incompatibleChangesAreRejectedBeforeReplication() {
    startCluster();
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    Schema typeChange = new Schema(List.of(ID,
        ColumnSchema.builder("v", Type.INT64).build().withId(2)), 1);
    AlterSchemaResponsePB r = fx.admin(leader.rpcAddress()).alterSchema(request(typeChange));
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(r.getError().getMessage()).contains(tablet).contains("'v'").contains("INT64");

    TabletServer follower = servers.stream().filter(s -> s != leader).findFirst().orElseThrow();
    AlterSchemaResponsePB notLeader = fx.admin(follower.rpcAddress()).alterSchema(request(V1));
    assertThat(notLeader.getError().getCode()).isEqualTo(StatusCodePB.NOT_LEADER);
    assertThat(leader.tabletManager().get(tablet).schema().version()).isZero();
  }

  @Test
  void aReplicaJoiningAfterAnAlterGetsTheAlteredRows() {
    startCluster();
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    assertOk(fx.write(leader, write(V0, 0, 10, r -> {})));
    alter(leader, V1);
    assertOk(fx.write(leader, write(V1, 10, 12, r -> r.addString("tmp", "x").addLong("n", 9L))));
    alter(leader, V2);
    TserverOptions o = TserverFixture.options(dir.resolve("ts3"), TserverFixture.freePort());
    TabletServer joiner = TserverFixture.start(o);
    servers.add(joiner);
    // As the master would: the joining replica is created with the table's current schema.
    CreateTabletRequestPB.Builder join = CreateTabletRequestPB.newBuilder()
        .setTableId(RaftIds.newId()).setTableName("renamed").setTabletId(tablet)
        .setSchema(V2.toPb()).setJoining(true);
    assertThat(fx.admin(joiner.rpcAddress()).createTablet(join.build()).hasError()).isFalse();
    ChangeConfigResponsePB added = fx.admin(leader.rpcAddress()).changeConfig(
        ChangeConfigRequestPB.newBuilder().setTabletId(tablet).setType(ChangeConfigTypePB.ADD_PEER)
            .setNewPeer(TserverFixture.peer(joiner)).setTimeoutMs(30_000).build());
    assertThat(added.hasError()).as(added.getError().getMessage()).isFalse();
    assertThat(fx.admin(leader.rpcAddress()).transferLeadership(TransferLeadershipRequestPB
        .newBuilder().setTabletId(tablet).setNewLeaderUuid(joiner.uuid()).setTimeoutMs(20_000)
        .build()).hasError()).isFalse();
    assertThat(TserverFixture.awaitLeader(tablet, List.of(joiner))).isSameAs(joiner);
    assertRows(joiner);
  }

  /**
   * A scanner opened before ALTERs, later writes, flushes and compactions finishes with its
   * snapshot's rows, under its open-time column names, its predicate still on the renamed column.
   */
  @Test
  void aScannerOpenedBeforeAltersFinishesWithItsSnapshotAndProjection() {
    startCluster();
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    assertOk(fx.write(leader, write(V0, 0, 30, r -> {})));
    // v < "value-2" as strings: value-0, value-1, value-10..value-19. Every later value
    // ("later-…", "again-…") would pass it too, had it leaked into the snapshot.
    ScanResponsePB r = openScan(leader, 2, List.of("v", "id"),
        ColumnPredicate.comparison("v", ColumnPredicate.Op.LESS, "value-2").toPb(V0));
    TabletStore store = leader.tabletManager().get(tablet).stateMachine().store();
    List<Runnable> between = List.of(
        () -> alter(leader, V1),
        () -> assertOk(fx.write(leader, write(V1, RowOpType.UPSERT, 0, 40, relabel("later-")))),
        store::flush,
        store::compact,
        () -> alter(leader, V2),
        () -> assertOk(fx.write(leader, write(V2, RowOpType.UPSERT, 5, 15, relabel("again-")))),
        store::flush,
        store::compact);
    List<List<Object>> rows = new ArrayList<>();
    int pages = 0;
    while (true) {
      assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
      Schema projection = Schema.fromPb(r.getProjection());
      assertThat(projection.columns()).extracting(ColumnSchema::name).containsExactly("v", "id");
      RowBlock.decode(projection, r.getData()).forEach(row -> rows.add(Arrays.asList(row)));
      if (pages < between.size()) {
        between.get(pages).run();
      }
      pages++;
      if (!r.getHasMoreResults()) {
        break;
      }
      r = nextPage(leader, r.getScannerId(), pages);
    }
    assertThat(pages).as("pages").isGreaterThanOrEqualTo(between.size());
    List<List<Object>> expected = new ArrayList<>();
    for (int k : new int[] {0, 1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
      expected.add(List.of("value-" + k, k));
    }
    assertThat(rows).containsExactlyElementsOf(expected);
  }

  @Test
  void aScannerReadingAColumnThatIsDroppedFailsNamingIt() {
    startCluster();
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    alter(leader, V1);
    assertOk(fx.write(leader, write(V1, 0, 10, r -> r.addString("tmp", "x"))));
    ScanResponsePB r = openScan(leader, 4, List.of("id", "tmp"), null);
    assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
    alter(leader, V2);
    ScanResponsePB failed = nextPage(leader, r.getScannerId(), 1);
    assertThat(failed.getError().getCode()).isEqualTo(StatusCodePB.ILLEGAL_STATE);
    assertThat(failed.getError().getMessage()).contains(tablet).contains("'tmp' (id 4)")
        .contains("schema version 1").contains("version 2");
    // The failed scanner is closed, its snapshot released.
    assertThat(nextPage(leader, r.getScannerId(), 2).getError().getCode())
        .isEqualTo(StatusCodePB.NOT_FOUND);
  }

  private ScanResponsePB openScan(TabletServer leader, int batch, List<String> columns,
      ColumnPredicatePB predicate) {
    NewScanRequestPB.Builder n = NewScanRequestPB.newBuilder().setTabletId(tablet)
        .addAllProjectedColumns(columns);
    if (predicate != null) {
      n.addPredicates(predicate);
    }
    return fx.data(leader).scan(ScanRequestPB.newBuilder().setBatchSizeRows(batch)
        .setNewScanRequest(n).build());
  }

  /** The next page, of one row. */
  private ScanResponsePB nextPage(TabletServer leader, ByteString scannerId, int seq) {
    return fx.data(leader).scan(ScanRequestPB.newBuilder().setScannerId(scannerId)
        .setCallSeqId(seq).setBatchSizeRows(1).build());
  }

  /** Sets label to {@code prefix} + the row's key. */
  private static Consumer<PartialRow> relabel(String prefix) {
    return r -> r.addString("label", prefix + r.get("id"));
  }

  private void startCluster() {
    for (int i = 0; i < 3; i++) {
      TserverOptions o = TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort());
      opts.add(o);
      servers.add(TserverFixture.start(o));
    }
    CreateTabletRequestPB.Builder b = CreateTabletRequestPB.newBuilder()
        .setTableId(RaftIds.newId()).setTableName("t").setTabletId(tablet).setSchema(V0.toPb());
    servers.forEach(ts -> b.addPeers(TserverFixture.peer(ts)));
    for (TabletServer ts : servers) {
      assertThat(fx.admin(ts.rpcAddress()).createTablet(b.build()).hasError()).isFalse();
    }
  }

  private AlterSchemaResponsePB alter(TabletServer leader, Schema s) {
    AlterSchemaResponsePB r = fx.admin(leader.rpcAddress()).alterSchema(request(s));
    assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
    return r;
  }

  private AlterSchemaRequestPB request(Schema s) {
    return AlterSchemaRequestPB.newBuilder().setTabletId(tablet).setSchema(s.toPb())
        .setNewTableName("renamed").build();
  }

  /** Rows 0..9 written before the alter read n's default; 10 and 11 kept their values. */
  private void assertRows(TabletServer leader) {
    List<Object[]> rows = fx.scanAll(leader, tablet, 5);
    assertThat(rows).hasSize(12);
    assertThat(rows.get(3)).containsExactly(3, "value-3", 7L);
    assertThat(rows.get(11)).containsExactly(11, "value-11", 9L);
    for (TabletServer ts : servers) {
      ReportedTabletPB rep = ts.tabletManager().get(tablet).report(ts.raftServer());
      assertThat(rep.getSchemaVersion()).isEqualTo(2);
    }
  }

  private WriteRequestPB write(Schema s, int from, int to, Consumer<PartialRow> more) {
    return write(s, RowOpType.INSERT, from, to, more);
  }

  private WriteRequestPB write(Schema s, RowOpType type, int from, int to,
      Consumer<PartialRow> more) {
    List<RowOperations.Op> ops = new ArrayList<>();
    String valueColumn = s.hasColumn("v") ? "v" : "label";
    for (int i = from; i < to; i++) {
      PartialRow row = s.newPartialRow().addInt("id", i).addString(valueColumn, "value-" + i);
      more.accept(row);
      ops.add(new RowOperations.Op(type, row));
    }
    return WriteRequestPB.newBuilder().setTabletId(tablet).setSchema(s.toPb())
        .setRowOperations(RowOperations.encode(s, ops)).build();
  }

  private void assertOk(WriteResponsePB w) {
    assertThat(w.hasError()).as(w.getError().getMessage()).isFalse();
    assertThat(w.getPerRowErrorsList()).isEmpty();
  }
}
