package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.OperationResponse;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.RowOperationsPB;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.rpc.Channels;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every kind of bad input gets its status code and a message naming the culprit, through the
 * client and as raw RPCs that bypass the client's checks; no server logs an exception for it.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@NyalaCluster
class BadInputIT {
  private static MiniCluster cluster;
  private static NyalaClient client;
  private static NyalaTable table;
  private static LogCapture logs;
  /**
   * Raw RPCs over TLS with the harness's certificate: they get past authentication as a server's
   * would and reach the checks under test.
   */
  private static Channels channels;

  @BeforeAll
  static void start(MiniCluster c, NyalaClient cl) {
    channels = c.newHarnessChannels();
    logs = new LogCapture();
    cluster = c;
    client = cl;
    table = client.createTable("bad_input", TestRows.schema(),
        new CreateTableOptions().addHashPartitions(List.of("key"), 2).setNumReplicas(3));
    NyalaSession s = client.newSession();
    Operation op = table.newInsert();
    op.getRow().addLong("key", 1).addString("name", "one");
    assertThat(s.apply(op).hasRowError()).isFalse();
    s.close();
  }

  @AfterAll
  static void stop() {
    // Checked before shutdown: Ratis rightly warns about peers closing under it then.
    List<String> logged = logs.exceptions();
    logs.close();
    channels.close();
    assertThat(logged).as("exceptions logged by the servers during the tests").isEmpty();
  }

  private static void assertError(ThrowingCallable call, StatusCode code, String... culprits) {
    assertThatThrownBy(call).isInstanceOfSatisfying(NyalaException.class, e -> {
      assertThat(e.code()).as(e.getMessage()).isEqualTo(code);
      for (String c : culprits) {
        assertThat(e.getMessage()).contains(c);
      }
    });
  }

  private static OperationResponse applyOne(Operation op) {
    NyalaSession s = client.newSession();
    try {
      return s.apply(op);
    } finally {
      s.close();
    }
  }

  @Test
  void unknownTable() {
    assertError(() -> client.openTable("no_such_table"), StatusCode.NOT_FOUND,
        "'no_such_table'");
    assertError(() -> client.deleteTable("no_such_table"), StatusCode.NOT_FOUND,
        "'no_such_table'");
  }

  @Test
  void duplicateKeyInsert() {
    Operation op = table.newInsert();
    op.getRow().addLong("key", 1).addString("name", "again");
    OperationResponse r = applyOne(op);
    assertThat(r.hasRowError()).isTrue();
    assertThat(r.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.ALREADY_PRESENT);
    assertThat(r.getRowError().getErrorStatus().message()).contains("already present");
  }

  @Test
  void updateAndDeleteOfMissingRow() {
    Operation up = table.newUpdate();
    up.getRow().addLong("key", 424242).addString("name", "x");
    OperationResponse r = applyOne(up);
    assertThat(r.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(r.getRowError().getErrorStatus().message()).contains("not found");
    Operation del = table.newDelete();
    del.getRow().addLong("key", 424242);
    OperationResponse d = applyOne(del);
    assertThat(d.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void wrongColumnTypeInClientAndOnTheWire() {
    assertError(() -> table.newInsert().getRow().addString("num", "seven"),
        StatusCode.INVALID_ARGUMENT, "'num'", "INT32", "STRING");
    // A request encoded against a schema that disagrees with the tablet's.
    Schema lying = Schema.forTable(List.of(
        ColumnSchema.builder("key", Type.INT64).key(true).build(),
        ColumnSchema.builder("name", Type.STRING).nullable(false).build(),
        ColumnSchema.builder("num", Type.STRING).build(),
        ColumnSchema.builder("dbl", Type.DOUBLE).build()));
    PartialRow row = lying.newPartialRow();
    row.addLong("key", 5).addString("name", "n").addString("num", "seven");
    WriteResponsePB resp = rawWrite(lying, RowOperations.encode(lying,
        List.of(new RowOperations.Op(RowOpType.INSERT, row))));
    assertWireError(resp.getError(), StatusCodePB.INVALID_ARGUMENT, "'num'");
  }

  @Test
  void nullInKeyOrNonNullableColumn() {
    assertError(() -> table.newInsert().getRow().setNull("key"),
        StatusCode.INVALID_ARGUMENT, "'key'");
    assertError(() -> table.newInsert().getRow().setNull("name"),
        StatusCode.INVALID_ARGUMENT, "'name'");
    Operation noName = table.newInsert();
    noName.getRow().addLong("key", 77);
    assertError(() -> applyOne(noName), StatusCode.INVALID_ARGUMENT, "'name'");
    // On the wire, past the client's checks: the tablet reports the row.
    Schema s = table.getSchema();
    PartialRow row = PartialRow.of(s, new Object[] {78L, null, null, null},
        bits(s.columnCount(), 0, 1));
    WriteResponsePB resp = rawWrite(s, RowOperations.encode(s,
        List.of(new RowOperations.Op(RowOpType.INSERT, row))));
    assertThat(resp.getPerRowErrorsCount()).isEqualTo(1);
    assertWireError(resp.getPerRowErrors(0).getError(), StatusCodePB.INVALID_ARGUMENT, "'name'");
  }

  @Test
  void missingKeyColumn() {
    Operation op = table.newInsert();
    op.getRow().addString("name", "keyless");
    assertError(() -> applyOne(op), StatusCode.INVALID_ARGUMENT, "'key'");
    Schema s = table.getSchema();
    PartialRow row = PartialRow.of(s, new Object[] {null, "n", null, null},
        bits(s.columnCount(), 1));
    WriteResponsePB resp = rawWrite(s, RowOperations.encode(s,
        List.of(new RowOperations.Op(RowOpType.INSERT, row))));
    StringBuilder all = new StringBuilder(resp.getError().getMessage());
    resp.getPerRowErrorsList().forEach(e -> all.append(e.getError().getMessage()));
    assertThat(all.toString()).contains("'key'");
  }

  @Test
  void garbageRowOperationsAreRejectedAndTheServerStaysUp() {
    Schema s = table.getSchema();
    WriteResponsePB resp = rawWrite(s, RowOperationsPB.newBuilder()
        .setRows(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7})).setCount(1).build());
    assertThat(resp.getError().getCode()).isIn(StatusCodePB.CORRUPTION,
        StatusCodePB.INVALID_ARGUMENT);
    assertThat(client.listTables()).contains("bad_input");
  }

  @Test
  void schemaWithoutKey() {
    assertError(() -> client.createTable("keyless", new Schema(List.of(
        ColumnSchema.builder("v", Type.INT32).build())), new CreateTableOptions()),
        StatusCode.INVALID_ARGUMENT, "primary key");
    // Straight to the master.
    var resp = masterStub().createTable(CreateTableRequestPB.newBuilder().setName("keyless")
        .setSchema(new Schema(List.of(ColumnSchema.builder("v", Type.INT32).build())).toPb())
        .setNumReplicas(1).build());
    assertWireError(resp.getError(), StatusCodePB.INVALID_ARGUMENT, "primary key");
  }

  @Test
  void replicationFactorLargerThanLiveTabletServers() {
    assertError(() -> client.createTable("too_many_replicas", TestRows.schema(),
        new CreateTableOptions().setNumReplicas(5)), StatusCode.INVALID_ARGUMENT, "5");
    assertThat(client.tableExists("too_many_replicas")).isFalse();
  }

  @Test
  void duplicateTableName() {
    assertError(() -> client.createTable("bad_input", TestRows.schema(),
        new CreateTableOptions().setNumReplicas(1)), StatusCode.ALREADY_PRESENT, "'bad_input'");
  }

  private static java.util.BitSet bits(int n, int... set) {
    java.util.BitSet b = new java.util.BitSet(n);
    for (int i : set) {
      b.set(i);
    }
    return b;
  }

  private static void assertWireError(ErrorPB e, StatusCodePB code, String culprit) {
    assertThat(e.getCode()).as(e.getMessage()).isEqualTo(code);
    assertThat(e.getMessage()).contains(culprit);
  }

  private static MasterServiceGrpc.MasterServiceBlockingStub masterStub() {
    ManagedChannel ch = channels.get(cluster.masterHostPorts().get(0));
    return MasterServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  /** Sends a Write straight to the leader of the table's first tablet. */
  private static WriteResponsePB rawWrite(Schema schema, RowOperationsPB ops) {
    var locs = masterStub().getTableLocations(GetTableLocationsRequestPB.newBuilder()
        .setTable(TableIdentifierPB.newBuilder().setTableName("bad_input")).build());
    TabletLocationsPB tablet = locs.getTabletLocations(0);
    WriteResponsePB last = null;
    for (var replica : tablet.getReplicasList()) {
      HostPort addr = HostPort.fromPb(replica.getTsInfo().getRpcAddress());
      last = TabletServerServiceGrpc.newBlockingStub(channels.get(addr))
          .withDeadlineAfter(30, TimeUnit.SECONDS)
          .write(WriteRequestPB.newBuilder().setTabletId(tablet.getTabletId())
              .setSchema(schema.toPb()).setRowOperations(ops).build());
      if (last.getError().getCode() != StatusCodePB.NOT_LEADER) {
        return last;
      }
    }
    return last;
  }
}
