package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.DataTypePB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.ValuePB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableRequestPB.Step;
import io.nyala.common.proto.master.AlterTableResponsePB;
import io.nyala.common.proto.master.GetTableSchemaRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import io.nyala.common.proto.master.IsAlterTableDoneRequestPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.tserver.AlterSchemaRequestPB;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** AlterTable on the master: validation, the new schema, propagation to tablet leaders. */
@Timeout(60)
class AlterTableTest extends LocationsTestBase {
  static Step add(String name, DataTypePB type, boolean nullable, ValuePB def) {
    ColumnSchemaPB.Builder c = ColumnSchemaPB.newBuilder().setName(name).setType(type)
        .setIsNullable(nullable);
    if (def != null) {
      c.setDefaultValue(def);
    }
    return Step.newBuilder().setAddColumn(AlterTableRequestPB.AddColumn.newBuilder()
        .setSchema(c)).build();
  }

  static Step drop(String name) {
    return Step.newBuilder().setDropColumn(AlterTableRequestPB.DropColumn.newBuilder()
        .setName(name)).build();
  }

  static Step rename(String from, String to) {
    return Step.newBuilder().setRenameColumn(AlterTableRequestPB.RenameColumn.newBuilder()
        .setOldName(from).setNewName(to)).build();
  }

  AlterTableResponsePB alter(String table, String newName, Step... steps) {
    return m.stub().alterTable(AlterTableRequestPB.newBuilder().setTable(Tables.byName(table))
        .addAllAlterSchemaSteps(List.of(steps)).setNewTableName(newName).build());
  }

  GetTableSchemaResponsePB schema(String table) {
    return m.stub().getTableSchema(GetTableSchemaRequestPB.newBuilder()
        .setTable(Tables.byName(table)).build());
  }

  boolean done(String table) {
    return m.stub().isAlterTableDone(IsAlterTableDoneRequestPB.newBuilder()
        .setTable(Tables.byName(table)).build()).getDone();
  }

  /** Every tablet's leader (replica 0) reports {@code version}. */
  void reportVersion(String tableId, int version) {
    for (SysTabletEntryPB t : tabletsOf(tableId)) {
      FakeTServer ts = tservers.stream().filter(f -> f.uuid.equals(t.getReplicas(0).getUuid()))
          .findFirst().get();
      ts.heartbeat(m.stub(), FakeTServer.incremental(
          FakeTServer.leader(t.getTabletId(), 1, version)));
    }
  }

  List<AlterSchemaRequestPB> altersSent() {
    return tservers.stream().flatMap(t -> t.alters.stream()).toList();
  }

  /**
   * A hibernated tablet has no leader: AlterSchema goes to a live replica, which wakes the group
   * and names the new leader, and the master follows the hint. A tablet whose replicas closed at
   * the table's version is current without being woken (docs/dense-nodes.md).
   */
  @Test
  void aHibernatedTabletIsAlteredThroughAReplicaAndNotWokenOnceCurrent() throws Exception {
    startWithTable("cold", 1);
    SysTabletEntryPB t = tabletsOf(tableId("cold")).get(0);
    List<String> peers = t.getReplicasList().stream()
        .map(io.nyala.common.proto.RaftPeerPB::getUuid).toList();
    List<FakeTServer> replicas = peers.stream().map(u -> tservers.stream()
        .filter(f -> f.uuid.equals(u)).findFirst().get()).toList();
    replicas.forEach(ts -> ts.heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.hibernated(t.getTabletId(), 1, peers, 3).toBuilder().setSchemaVersion(1)
            .build())));
    assertThat(done("cold")).isTrue();
    replicas.forEach(ts -> ts.notLeaderHint = replicas.get(2));
    replicas.get(2).notLeaderHint = null;

    assertThat(alter("cold", "", add("c1", DataTypePB.INT32, true, null)).hasError()).isFalse();

    await().atMost(Duration.ofSeconds(10)).until(() -> !replicas.get(2).alters.isEmpty());
    assertThat(replicas.get(0).alters).as("the first live replica is asked first").isNotEmpty();
    assertThat(replicas.get(2).alters.get(0).getSchema().getVersion()).isEqualTo(2);
    // The woken group changes and goes back to sleep at a higher term, at version 2.
    replicas.forEach(ts -> ts.heartbeat(m.stub(), FakeTServer.incremental(
        FakeTServer.hibernated(t.getTabletId(), 2, peers, 3).toBuilder().setSchemaVersion(2)
            .build())));
    await().atMost(Duration.ofSeconds(10)).until(() -> done("cold"));
    int sent = altersSent().size();
    m.advanceClock(Duration.ofSeconds(5)); // past the retry interval
    long sweeps = m.master.reReplicator().sweeps();
    await().atMost(Duration.ofSeconds(10))
        .until(() -> m.master.reReplicator().sweeps() >= sweeps + 3);
    assertThat(altersSent()).hasSize(sent);
  }

  @Test
  void addRenameAndDropColumnsThenTheTabletsFollow() throws Exception {
    startWithTable("t", 2);
    String id = tableId("t");
    reportVersion(id, 1);
    AlterTableResponsePB r = alter("t", "",
        add("c1", DataTypePB.INT32, true, null),
        add("c2", DataTypePB.INT64, false, ValuePB.newBuilder().setIntValue(7).build()),
        rename("val", "v"));
    assertThat(r.hasError()).as(r.getError().getMessage()).isFalse();
    assertThat(r.getSchemaVersion()).isEqualTo(2);
    GetTableSchemaResponsePB s = schema("t");
    assertThat(s.getSchema().getVersion()).isEqualTo(2);
    assertThat(s.getSchema().getColumnsList()).extracting(ColumnSchemaPB::getName)
        .containsExactly("key", "v", "c1", "c2");
    assertThat(s.getSchema().getColumnsList()).extracting(ColumnSchemaPB::getId)
        .containsExactly(1, 2, 3, 4);
    assertThat(s.getSchema().getColumns(3).getDefaultValue().getIntValue()).isEqualTo(7);

    await().atMost(Duration.ofSeconds(10)).until(() -> altersSent().size() >= 2);
    assertThat(altersSent()).allSatisfy(a -> {
      assertThat(a.getSchema().getVersion()).isEqualTo(2);
      assertThat(a.getNewTableName()).isEqualTo("t");
    });
    assertThat(done("t")).isFalse();
    reportVersion(id, 2);
    assertThat(done("t")).isTrue();

    r = alter("t", "", drop("c1"));
    assertThat(r.getSchemaVersion()).isEqualTo(3);
    assertThat(schema("t").getSchema().getColumnsList()).extracting(ColumnSchemaPB::getName)
        .containsExactly("key", "v", "c2");
    // Ids are never reused, even for a column added after a drop.
    alter("t", "", add("c1", DataTypePB.INT32, true, null));
    assertThat(schema("t").getSchema().getColumns(3).getId()).isEqualTo(5);
  }

  @Test
  void renameTableMovesTheName() throws Exception {
    startWithTable("old", 1);
    startTable("other");
    AlterTableResponsePB r = alter("old", "other");
    assertThat(r.getError().getCode()).isEqualTo(StatusCodePB.ALREADY_PRESENT);
    assertThat(r.getError().getMessage()).contains("'old'").contains("'other'");
    r = alter("old", "new");
    assertThat(r.hasError()).isFalse();
    assertThat(schema("new").getTableName()).isEqualTo("new");
    assertThat(schema("old").getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
    await().atMost(Duration.ofSeconds(10)).until(() -> !altersSent().isEmpty());
    assertThat(altersSent().get(0).getNewTableName()).isEqualTo("new");
  }

  void startTable(String name) {
    createRunning(name, 1);
  }

  @Test
  void unreportedTabletsGetTheChangeAgain() throws Exception {
    startWithTable("t", 1);
    alter("t", "", add("c", DataTypePB.STRING, true, null));
    await().atMost(Duration.ofSeconds(10)).until(() -> altersSent().size() == 1);
    m.advanceClock(Duration.ofSeconds(5));
    await().atMost(Duration.ofSeconds(10)).until(() -> altersSent().size() >= 2);
    reportVersion(tableId("t"), 2);
    assertThat(done("t")).isTrue();
  }

  @Test
  void badAltersNameTheProblem() throws Exception {
    startWithTable("t", 1);
    assertInvalid(alter("t", "", add("c", DataTypePB.INT32, false, null)), "'c'", "nullable");
    assertInvalid(alter("t", "", drop("key")), "key column 'key'");
    assertInvalid(alter("t", "", drop("nope")), "'nope'");
    assertInvalid(alter("t", "", rename("val", "key")), "'key'");
    assertInvalid(alter("t", "", add("val", DataTypePB.INT32, true, null)), "'val'");
    assertInvalid(alter("t", ""), "nothing to change");
    assertInvalid(alter("t", "", add("d", DataTypePB.INT32, false,
        ValuePB.newBuilder().setStringValue("x").build())), "'d'");
    assertThat(alter("nope", "", drop("val")).getError().getCode())
        .isEqualTo(StatusCodePB.NOT_FOUND);
    assertThat(schema("t").getSchema().getVersion()).isEqualTo(1);
  }

  static void assertInvalid(AlterTableResponsePB r, String... fragments) {
    assertThat(r.getError().getCode()).as(r.getError().getMessage())
        .isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    for (String f : fragments) {
      assertThat(r.getError().getMessage()).contains(f);
    }
  }
}
