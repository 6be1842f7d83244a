package io.nyala.master.catalog;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletKeyRewrapPB;
import io.nyala.common.proto.metadata.SysTokenSigningKeyPB;
import io.nyala.common.proto.metadata.SysTokenSigningKeyRewrapPB;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.WrappedKey;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-wraps the tablet data keys and the token signing keys the catalog holds under the cluster
 * key's current version (docs/encryption.md, "Rotating the cluster key"), in batches of
 * {@value #BATCH} tablets (the few token signing keys go with the first). Each
 * rewrap is a compare-and-set applied by every master ({@link CatalogState}): it takes effect
 * only while the tablet still holds its key under the version it was read with, and a later
 * put of the tablet made from an older copy keeps the newer wrap. So DDL running meanwhile
 * loses no key: a tablet created before the provider's reload is re-wrapped by the next pass,
 * one created after it is born under the new version.
 */
public final class TabletKeyRewrapper {
  private static final Logger LOG = LoggerFactory.getLogger(TabletKeyRewrapper.class);
  /** Tablets re-wrapped per catalog entry. */
  static final int BATCH = 100;

  private final SysCatalog catalog;
  private final KeyProvider keys;

  /** Re-wraps under {@code keys}' current version the tablet keys of {@code catalog}. */
  public TabletKeyRewrapper(SysCatalog catalog, KeyProvider keys) {
    this.catalog = catalog;
    this.keys = keys;
  }

  /**
   * Keys in the catalog wrapped by a version below {@code version}: tablet data keys and token
   * signing keys (docs/architecture.md, "Client tokens").
   */
  public long keysBehind(int version) {
    return catalog.read(s -> s.tablets().stream().filter(t -> isBehind(t, version)).count()
        + s.tokenSigningKeys().stream().filter(k -> isBehind(k, version)).count());
  }

  private static boolean isBehind(SysTokenSigningKeyPB k, int version) {
    // Version 0 is a key stored unwrapped by a cluster without a cluster key: none to rotate.
    return k.getPrivateKeyVersion() > 0 && k.getPrivateKeyVersion() < version;
  }

  private static boolean isBehind(SysTabletEntryPB t, int version) {
    return !t.getWrappedTabletKey().isEmpty() && t.getTabletKeyVersion() < version;
  }

  /**
   * Writes rewrap batches until no tablet key is behind the current version, or
   * {@code maxBatches} were written; returns how many keys it re-wrapped. Call on the leader.
   */
  public int sweep(int maxBatches) {
    int done = 0;
    for (int i = 0; i < maxBatches; i++) {
      int version = keys.currentVersion();
      List<SysTabletEntryPB> behind = catalog.read(s -> s.tablets().stream()
          .filter(t -> isBehind(t, version)).limit(BATCH).toList());
      List<SysTokenSigningKeyPB> tokenKeys = catalog.read(s -> s.tokenSigningKeys().stream()
          .filter(k -> isBehind(k, version)).toList());
      if (behind.isEmpty() && tokenKeys.isEmpty()) {
        break;
      }
      SysCatalogBatchPB.Builder b = batch(behind).toBuilder();
      tokenKeys.forEach(k -> b.addOps(rewrap(k)));
      catalog.writeSync(b.build());
      done += behind.size() + tokenKeys.size();
    }
    if (done > 0) {
      LOG.info("re-wrapped {} tablet keys under cluster key version {}; {} still behind", done,
          keys.currentVersion(), keysBehind(keys.currentVersion()));
    }
    return done;
  }

  /** The op re-wrapping a token signing key's private half under the current version. */
  SysCatalogOpPB rewrap(SysTokenSigningKeyPB k) {
    WrappedKey old = new WrappedKey(k.getPrivateKeyVersion(),
        k.getWrappedPrivateKey().toByteArray());
    WrappedKey now = keys.wrapServerKey(keys.unwrapServerKey(old, "token signing key "
        + k.getSeq() + " in the sys catalog"));
    return SysCatalogOpPB.newBuilder().setRewrapTokenSigningKey(
        SysTokenSigningKeyRewrapPB.newBuilder().setSeq(k.getSeq())
            .setFromVersion(old.clusterKeyVersion())
            .setWrappedPrivateKey(ByteString.copyFrom(now.wrapped()))
            .setPrivateKeyVersion(now.clusterKeyVersion())).build();
  }

  /** One catalog entry re-wrapping the keys of {@code tablets} under the current version. */
  SysCatalogBatchPB batch(List<SysTabletEntryPB> tablets) {
    SysCatalogBatchPB.Builder b = SysCatalogBatchPB.newBuilder();
    for (SysTabletEntryPB t : tablets) {
      WrappedKey old = new WrappedKey(t.getTabletKeyVersion(),
          t.getWrappedTabletKey().toByteArray());
      KeyMaterial key = keys.unwrapServerKey(old, "tablet key of " + t.getTabletId()
          + " in the sys catalog");
      WrappedKey now = keys.wrapServerKey(key);
      b.addOps(SysCatalogOpPB.newBuilder().setRewrapTabletKey(SysTabletKeyRewrapPB.newBuilder()
          .setTabletId(t.getTabletId()).setFromVersion(old.clusterKeyVersion())
          .setWrappedTabletKey(ByteString.copyFrom(now.wrapped()))
          .setTabletKeyVersion(now.clusterKeyVersion())));
    }
    return b.build();
  }
}
