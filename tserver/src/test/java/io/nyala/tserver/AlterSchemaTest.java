package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import io.nyala.common.proto.tserver.AlterSchemaResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigRequestPB;
import io.nyala.common.proto.tserver.ChangeConfigResponsePB;
import io.nyala.common.proto.tserver.ChangeConfigTypePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.TransferLeadershipRequestPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** ALTER_SCHEMA on a real three-replica tablet, across a restart of every tablet server. */
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
    List<RowOperations.Op> ops = new ArrayList<>();
    String valueColumn = s.hasColumn("v") ? "v" : "label";
    for (int i = from; i < to; i++) {
      PartialRow row = s.newPartialRow().addInt("id", i).addString(valueColumn, "value-" + i);
      more.accept(row);
      ops.add(new RowOperations.Op(RowOpType.INSERT, row));
    }
    return WriteRequestPB.newBuilder().setTabletId(tablet).setSchema(s.toPb())
        .setRowOperations(RowOperations.encode(s, ops)).build();
  }

  private void assertOk(WriteResponsePB w) {
    assertThat(w.hasError()).as(w.getError().getMessage()).isFalse();
    assertThat(w.getPerRowErrorsList()).isEmpty();
  }
}
