package io.nyala.master.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nyala.common.env.Env;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.LogPayloads;
import io.nyala.common.security.WrappedKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's tablet keys re-wrapped under a new cluster key version (docs/encryption.md,
 * "Rotating the cluster key"): the data key stays, the rewrap is a compare-and-set, a put made
 * from an older copy keeps the newer wrap, and tombstones keep no key.
 */
@Timeout(20)
class TabletKeyRewrapTest {
  @TempDir
  Path dir;

  private static SysTabletEntryPB tablet(String id, int start, WrappedKey key) {
    return SysTabletEntryPB.newBuilder().setTabletId(id).setTableId("t")
        .setPartition(PartitionPB.newBuilder()
            .setPartitionKeyStart(ByteString.copyFrom(new byte[] {(byte) start})))
        .setState(SysTabletStatePB.SYS_TABLET_CREATING)
        .setWrappedTabletKey(ByteString.copyFrom(key.wrapped()))
        .setTabletKeyVersion(key.clusterKeyVersion()).build();
  }

  private static void apply(CatalogState s, SysCatalogBatchPB batch) {
    batch.getOpsList().forEach(s::apply);
  }

  private static KeyMaterial keyOf(FileKeyProvider keys, SysTabletEntryPB t) {
    return keys.unwrapServerKey(new WrappedKey(t.getTabletKeyVersion(),
        t.getWrappedTabletKey().toByteArray()), "tablet " + t.getTabletId());
  }

  @Test
  void rewrapKeepsEveryDataKeyAndIsNotUndoneByStalePuts() {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider keys = FileKeyProvider.openOrCreate(f, 256);
    TabletKeyRewrapper rewrapper = new TabletKeyRewrapper(
        new SysCatalog(Env.plain(), LogPayloads.plain("sys-catalog")), keys);
    CatalogState s = new CatalogState();
    s.apply(SysCatalogOpPB.newBuilder().setPutTable(SysTableEntryPB.newBuilder()
        .setTableId("t").setName("a")).build());
    List<KeyMaterial> dataKeys = new ArrayList<>();
    List<SysTabletEntryPB> before = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      KeyMaterial k = KeyMaterial.random(256);
      dataKeys.add(k);
      SysTabletEntryPB t = tablet("x" + i, i, keys.wrapServerKey(k));
      before.add(t);
      s.apply(SysCatalogOpPB.newBuilder().setPutTablet(t).build());
    }
    FileKeyProvider.addVersion(f, 256);
    keys.reload();
    SysCatalogBatchPB rewrap = rewrapper.batch(before);

    apply(s, rewrap);
    for (int i = 0; i < 5; i++) {
      SysTabletEntryPB t = s.tablet("x" + i);
      assertThat(t.getTabletKeyVersion()).as(t.getTabletId()).isEqualTo(2);
      assertThat(keyOf(keys, t)).as(t.getTabletId()).isEqualTo(dataKeys.get(i));
    }
    // A state change written from a copy read before the rewrap keeps the new wrap.
    s.apply(SysCatalogOpPB.newBuilder().setPutTablet(before.get(0).toBuilder()
        .setState(SysTabletStatePB.SYS_TABLET_RUNNING)).build());
    assertThat(s.tablet("x0").getState()).isEqualTo(SysTabletStatePB.SYS_TABLET_RUNNING);
    assertThat(s.tablet("x0").getTabletKeyVersion()).isEqualTo(2);
    assertThat(keyOf(keys, s.tablet("x0"))).isEqualTo(dataKeys.get(0));
    // A rewrap read under an older version than the tablet holds now changes nothing.
    SysTabletEntryPB now = s.tablet("x1");
    apply(s, rewrap);
    assertThat(s.tablet("x1")).isEqualTo(now);

    // With version 1 retired every live tablet key still opens; the tombstone holds none.
    s.apply(SysCatalogOpPB.newBuilder().setDeleteTabletId("x4").build());
    assertThat(s.deletedTablet("x4").getWrappedTabletKey().isEmpty()).isTrue();
    FileKeyProvider.retireVersionsBefore(f, 2);
    FileKeyProvider restarted = FileKeyProvider.open(f);
    CatalogState reloaded = CatalogState.fromSnapshot(s.toSnapshot(1, 1));
    for (int i = 0; i < 4; i++) {
      assertThat(keyOf(restarted, reloaded.tablet("x" + i))).isEqualTo(dataKeys.get(i));
    }
  }
}
