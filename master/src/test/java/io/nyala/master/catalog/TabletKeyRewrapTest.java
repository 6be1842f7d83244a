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
import io.nyala.common.proto.metadata.SysTokenSigningKeyPB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.LogPayloads;
import io.nyala.common.security.WrappedKey;
import io.nyala.common.security.token.TokenSigningKey;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's tablet keys re-wrapped under a new cluster key version (docs/encryption.md,
 * "Rotating the cluster key"): the data key stays, the rewrap is a compare-and-set, a put made
 * from an older copy keeps the newer wrap, and tombstones keep no key; token signing keys are
 * re-wrapped the same way.
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

  @Test
  void tokenSigningKeysAreRewrappedToo() throws Exception {
    Path f = dir.resolve("cluster.key");
    FileKeyProvider keys = FileKeyProvider.openOrCreate(f, 256);
    TabletKeyRewrapper rewrapper = new TabletKeyRewrapper(
        new SysCatalog(Env.plain(), LogPayloads.plain("sys-catalog")), keys);
    CatalogState s = new CatalogState();
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(new ECGenParameterSpec("secp256r1"));
    List<TokenSigningKey> signing = List.of(
        new TokenSigningKey(1, gen.generateKeyPair(), 5_000, 1_000),
        new TokenSigningKey(2, gen.generateKeyPair(), Long.MAX_VALUE, 0));
    apply(s, CatalogTokenKeys.batch(signing, List.of(), keys));
    List<SysTokenSigningKeyPB> before = List.copyOf(s.tokenSigningKeys());
    FileKeyProvider.addVersion(f, 256);
    keys.reload();

    SysCatalogOpPB first = rewrapper.rewrap(before.get(0));
    s.apply(first);
    // Key 2 expires and leaves before its rewrap applies: the rewrap does not bring it back.
    s.apply(SysCatalogOpPB.newBuilder().setDeleteTokenSigningKeySeq(2).build());
    s.apply(rewrapper.rewrap(before.get(1)));
    assertThat(s.tokenSigningKeys()).extracting(SysTokenSigningKeyPB::getSeq)
        .containsExactly(1L);
    assertThat(s.tokenSigningKeys().iterator().next().getPrivateKeyVersion()).isEqualTo(2);
    // A rewrap read under the old version again changes nothing.
    SysTokenSigningKeyPB now = s.tokenSigningKeys().iterator().next();
    s.apply(first.toBuilder().setRewrapTokenSigningKey(first.getRewrapTokenSigningKey()
        .toBuilder().setWrappedPrivateKey(ByteString.copyFrom(new byte[40]))).build());
    assertThat(s.tokenSigningKeys()).containsExactly(now);

    FileKeyProvider.retireVersionsBefore(f, 2);
    TokenSigningKey opened = CatalogTokenKeys.unwrap(
        CatalogState.fromSnapshot(s.toSnapshot(1, 1)).tokenSigningKeys(),
        FileKeyProvider.open(f)).get(0);
    assertThat(opened.privateScalar()).isEqualTo(signing.get(0).privateScalar());
    assertThat(opened.publicKeyDer()).isEqualTo(signing.get(0).publicKeyDer());
  }
}
