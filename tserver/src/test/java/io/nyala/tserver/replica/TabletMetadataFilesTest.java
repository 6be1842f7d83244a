package io.nyala.tserver.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Each tablet's metadata file, on real files: round trip, corruption, schema and delete marks. */
@Timeout(10)
class TabletMetadataFilesTest {
  private static final String TABLET = "0123456789abcdef0123456789abcdef";
  private static final ColumnSchema ID =
      ColumnSchema.builder("id", Type.INT32).key(true).build().withId(1);
  private static final ColumnSchema V = ColumnSchema.builder("v", Type.STRING).build().withId(2);
  private static final Schema V0 = new Schema(List.of(ID), 0);
  private static final Schema V1 = new Schema(List.of(ID, V), 1);

  @TempDir
  Path dir;
  private TabletMetadataFiles files;

  @BeforeEach
  void setUp() throws Exception {
    files = new TabletMetadataFiles(dir.resolve("tablet-meta"), Env.plain());
    files.list(); // creates the dir, as a start does before anything is written
  }

  @Test
  void aWrittenFileReadsBackAndHalfWrittenOnesAreNotListed() throws Exception {
    files.write(metadata());
    Files.writeString(files.dir().resolve(TABLET + ".tmp"), "half");
    assertThat(files.list()).containsExactly(files.file(TABLET));
    assertThat(files.read(files.file(TABLET))).isEqualTo(metadata());
  }

  @Test
  void aDamagedFileIsCorruptionNamingTheFile() throws Exception {
    Files.write(files.file(TABLET), new byte[] {(byte) 0xff, 0x01, 0x02});
    assertThatThrownBy(() -> files.read(files.file(TABLET)))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining(files.file(TABLET).toString());
  }

  @Test
  void aNewerSchemaIsPersistedAndInstalledAnOlderOneIsNot() throws Exception {
    files.write(metadata());
    TabletReplica r = replica(metadata());
    assertThat(files.persistSchema(r, V1, "renamed")).isTrue();
    TabletMetadataPB onDisk = files.read(files.file(TABLET));
    assertThat(onDisk.getSchema().getVersion()).isEqualTo(1);
    assertThat(onDisk.getInitialSchema()).isEqualTo(V0.toPb());
    assertThat(onDisk.getTableName()).isEqualTo("renamed");
    assertThat(r.metadata()).isEqualTo(onDisk);
    assertThat(files.persistSchema(r, V0.withVersion(1), "")).isFalse();
    assertThat(files.read(files.file(TABLET))).isEqualTo(onDisk);
  }

  @Test
  void aReplicaMarkedDeletingKeepsItsSchemaAndItsFileGoesLast() throws Exception {
    files.write(metadata());
    TabletReplica r = replica(metadata());
    synchronized (r) {
      files.persistDeleting(r);
    }
    assertThat(files.read(files.file(TABLET)).getDataState())
        .isEqualTo(TabletDataStatePB.TABLET_DATA_DELETING);
    assertThat(files.persistSchema(r, V1, "")).isFalse();
    files.delete(TABLET);
    assertThat(files.file(TABLET)).doesNotExist();
    assertThat(files.list()).isEmpty();
  }

  private static TabletMetadataPB metadata() {
    return TabletMetadataPB.newBuilder().setTabletId(TABLET).setTableId("t1")
        .setTableName("metrics").setSchema(V0.toPb())
        .setDataState(TabletDataStatePB.TABLET_DATA_READY).build();
  }

  private static TabletReplica replica(TabletMetadataPB m) {
    return new TabletReplica(m, null, Env.plain(), null, null, null);
  }
}
