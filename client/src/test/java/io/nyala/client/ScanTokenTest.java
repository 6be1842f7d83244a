package io.nyala.client;

import static io.nyala.client.ClientFixture.keys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.fake.FakeTablet;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.proto.client.ScanTokenPB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Scan tokens against scripted tablet servers: (de)serialization, read points and errors. */
@Timeout(20)
class ScanTokenTest {
  private final ClientFixture f = new ClientFixture(1, 3);

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void tokensSurviveBytesAndTogetherCoverEveryRowOnce() {
    NyalaTable t = f.createTable("m", 4, 1);
    f.insertRange(t, 0, 100);
    List<NyalaScanToken> tokens = f.client.newScanTokenBuilder(t)
        .setProjectedColumnNames(List.of("key")).build();
    assertThat(tokens).extracting(NyalaScanToken::tabletId).containsExactlyElementsOf(
        f.cluster.table("m").tablets().stream().map(FakeTablet::id).toList());
    List<Long> all = new ArrayList<>();
    try (NyalaClient other = NyalaClient.builder(f.cluster.masterAddresses()).build()) {
      for (NyalaScanToken token : tokens) {
        byte[] bytes = token.serialize();
        NyalaScanToken back = NyalaScanToken.deserialize(bytes);
        assertThat(back.tabletId()).isEqualTo(token.tabletId());
        assertThat(back.tableId()).isEqualTo(t.getTableId());
        assertThat(back.tableName()).isEqualTo("m");
        assertThat(back.schemaVersion()).isEqualTo(t.getSchema().version());
        assertThat(back.readMode()).isEqualTo(ReadMode.READ_LATEST);
        try (NyalaScanner s = NyalaScanToken.deserializeIntoScanner(bytes, other)) {
          assertThat(s.getProjectionSchema().columnCount()).isEqualTo(1);
          all.addAll(keys(s));
        }
      }
    }
    assertThat(all).hasSize(100).doesNotHaveDuplicates();
  }

  @Test
  void anEqualityPredicateOnTheHashColumnLeavesOneToken() {
    NyalaTable t = f.createTable("m", 4, 1);
    f.insertRange(t, 0, 20);
    List<NyalaScanToken> tokens = f.client.newScanTokenBuilder(t)
        .addPredicate(ColumnPredicate.comparison("key", ColumnPredicate.Op.EQUAL, 7L)).build();
    assertThat(tokens).hasSize(1);
    assertThat(keys(tokens.get(0).intoScanner(f.client))).containsExactly(7L);
  }

  @Test
  void snapshotTokensShareOneIndexPerTabletAndAFullScanReadsTheSame() {
    NyalaTable t = f.createTable("m", 2, 1);
    f.insertRange(t, 0, 10);
    List<NyalaScanToken> tokens = f.client.newScanTokenBuilder(t)
        .readMode(ReadMode.READ_AT_SNAPSHOT).build();
    ScanSnapshot snapshot = ScanSnapshot.of(tokens);
    assertThat(snapshot.indexes()).hasSize(2);
    f.insertRange(t, 10, 20);
    f.cluster.scanOpens.clear();
    List<Long> fromTokens = new ArrayList<>();
    for (NyalaScanToken token : tokens) {
      fromTokens.addAll(keys(NyalaScanToken.deserializeIntoScanner(token.serialize(), f.client)));
    }
    List<Long> full = keys(t.newScannerBuilder().snapshot(snapshot).build());
    assertThat(fromTokens).containsExactlyInAnyOrderElementsOf(full);
    for (NewScanRequestPB req : f.cluster.scanOpens) {
      assertThat(req.getReadMode()).isEqualTo(ReadModePB.READ_AT_SNAPSHOT);
      assertThat(req.getSnapIndex()).isEqualTo(snapshot.indexes().get(req.getTabletId()));
    }
  }

  @Test
  void readYourWritesSendsTheLastWriteIndexAlsoThroughAToken() {
    NyalaTable t = f.createTable("m", 1, 3);
    f.insertRange(t, 0, 5);
    long written = f.tablet("m", 0).writeIndex();
    NyalaScanToken token = f.client.newScanTokenBuilder(t)
        .readMode(ReadMode.READ_YOUR_WRITES).build().get(0);
    try (NyalaClient other = NyalaClient.builder(f.cluster.masterAddresses()).build()) {
      f.cluster.scanOpens.clear();
      assertThat(keys(NyalaScanToken.deserializeIntoScanner(token.serialize(), other)))
          .hasSize(5);
      assertThat(keys(other.openTable("m").newScannerBuilder()
          .readMode(ReadMode.READ_YOUR_WRITES).build()))
          .hasSize(5);
    }
    assertThat(f.cluster.scanOpens).extracting(NewScanRequestPB::getMinAppliedIndex)
        .as("the token carries the writer's index; the other client wrote nothing")
        .containsExactly(written, 0L);
  }

  @Test
  void bytesThatAreNotATokenFailNamingWhatIsWrong() {
    assertThatThrownBy(() -> NyalaScanToken.deserialize(new byte[] {(byte) 0xff, 1, 2}))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("not a scan token (3 bytes)");
    assertThatThrownBy(() -> NyalaScanToken.deserializeIntoScanner(new byte[0], f.client))
        .isInstanceOf(NyalaException.class).hasMessageContaining("no table or tablet id");
  }

  @Test
  void aColumnDroppedOrReplacedSinceTheBuildFailsNamingColumnAndTable() {
    ColumnSchema key = new ColumnSchema("key", Type.INT64, true, false, null, 10);
    ScanTokenPB pb = ScanTokenPB.newBuilder().setTableId("tid").setTableName("metrics")
        .setTabletId("t1").setSchemaVersion(1).addProjectedColumns("key")
        .addProjectedColumnIds(10).addProjectedColumns("note").addProjectedColumnIds(11)
        .setScanRequestTimeoutMs(1000).build();
    NyalaTable dropped = table(new Schema(List.of(key), 2));
    assertThatThrownBy(() -> TokenScanners.spec(pb, dropped))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND))
        .hasMessageContaining("column 'note'").hasMessageContaining("table 'metrics'")
        .hasMessageContaining("dropped").hasMessageContaining("schema version 1 (now version 2)");
    NyalaTable replaced = table(new Schema(List.of(key,
        new ColumnSchema("note", Type.STRING, false, true, null, 12)), 3));
    assertThatThrownBy(() -> TokenScanners.spec(pb, replaced))
        .hasMessageContaining("column 'note'").hasMessageContaining("replaced");
    NyalaTable same = table(new Schema(List.of(key,
        new ColumnSchema("note", Type.STRING, false, true, null, 11)), 3));
    assertThat(TokenScanners.spec(pb, same).projectedColumns()).containsExactly("key", "note");
    assertThat(TokenScanners.spec(pb, same).snapshot()).isEqualTo(Map.of());
  }

  private NyalaTable table(Schema schema) {
    return new NyalaTable(f.client.getAsyncClient(), "tid", "metrics", schema,
        PartitionSchema.unpartitioned(schema), 1);
  }
}
