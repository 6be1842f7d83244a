package io.nyala.master.catalog;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTokenSigningKeyPB;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.WrappedKey;
import io.nyala.common.security.token.TokenSigningKey;
import io.nyala.common.security.token.TokenSigningKeyStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The token signing keys kept in the sys catalog (docs/architecture.md, "Client tokens"): each
 * key's public half and times as published, its private half wrapped by the cluster key; in a
 * cluster that does not encrypt at rest (no cluster key) stored as is, as Kudu does. A save is
 * one catalog batch (the rotation's keys and the removal of expired ones), written through
 * Ratis, so only the leader's succeeds.
 */
public final class CatalogTokenKeys implements TokenSigningKeyStore {
  /** The version of a record stored as is, in a cluster without a cluster key. */
  static final int UNWRAPPED = 0;
  private final SysCatalog catalog;
  private final KeyProvider keys;

  /**
   * @param catalog where the keys live
   * @param keys the cluster key that wraps their private halves; null when the cluster does not
   *     encrypt at rest
   */
  public CatalogTokenKeys(SysCatalog catalog, KeyProvider keys) {
    this.catalog = catalog;
    this.keys = keys;
  }

  @Override
  public List<TokenSigningKey> load() {
    return unwrap(catalog.read(s -> List.copyOf(s.tokenSigningKeys())), keys);
  }

  /**
   * The public halves of the stored keys, oldest first: what a follower master checks tokens
   * with, so that it answers a client of its leader NOT_LEADER rather than refusing its token.
   */
  public List<TokenSigningPublicKeyPB> publicKeys() {
    return catalog.read(s -> s.tokenSigningKeys().stream()
        .map(r -> TokenSigningPublicKeyPB.newBuilder().setSeq(r.getSeq())
            .setPublicKeyDer(r.getPublicKeyDer()).setExpireTimeMs(r.getExpireTimeMs()).build())
        .toList());
  }

  /**
   * {@inheritDoc}
   *
   * <p>Refuses (ILLEGAL_STATE) to replace a stored key by another of the same seq: the signer's
   * keys are then stale (another master rotated since it restored them), and the stored key may
   * already have signed tokens. Only the leader writes, so the check holds until the write.
   */
  @Override
  public void save(List<TokenSigningKey> put, List<Long> deleted) {
    for (TokenSigningKey k : put) {
      ByteString der = ByteString.copyFrom(k.publicKeyDer());
      ByteString stored = catalog.read(s -> s.tokenSigningKey(k.seq()));
      if (stored != null && !stored.equals(der)) {
        throw NyalaException.illegalState("token signing key %d in the sys catalog is another "
            + "key: this master's keys are stale (another master rotated since); not stored",
            k.seq());
      }
    }
    catalog.writeSync(batch(put, deleted, keys));
  }

  /** The catalog batch that stores {@code put} and removes {@code deleted}. */
  static SysCatalogBatchPB batch(List<TokenSigningKey> put, List<Long> deleted,
      KeyProvider keys) {
    SysCatalogBatchPB.Builder b = SysCatalogBatchPB.newBuilder();
    for (TokenSigningKey k : put) {
      b.addOps(SysCatalogOpPB.newBuilder().setPutTokenSigningKey(wrap(k, keys)));
    }
    for (long seq : deleted) {
      b.addOps(SysCatalogOpPB.newBuilder().setDeleteTokenSigningKeySeq(seq));
    }
    return b.build();
  }

  /**
   * A key's catalog record: its private scalar wrapped under the current cluster key, or as is
   * (version {@link #UNWRAPPED}) when {@code keys} is null (no encryption at rest).
   */
  static SysTokenSigningKeyPB wrap(TokenSigningKey k, KeyProvider keys) {
    byte[] scalar = k.privateScalar();
    ByteString stored;
    int version;
    try {
      if (keys == null) {
        stored = ByteString.copyFrom(scalar);
        version = UNWRAPPED;
      } else {
        WrappedKey w = keys.wrapServerKey(KeyMaterial.of(scalar));
        stored = ByteString.copyFrom(w.wrapped());
        version = w.clusterKeyVersion();
      }
    } finally {
      Arrays.fill(scalar, (byte) 0);
    }
    return SysTokenSigningKeyPB.newBuilder()
        .setSeq(k.seq())
        .setPublicKeyDer(ByteString.copyFrom(k.publicKeyDer()))
        .setExpireTimeMs(k.expireMs())
        .setSigningSinceMs(k.signingSinceMs())
        .setWrappedPrivateKey(stored)
        .setPrivateKeyVersion(version)
        .build();
  }

  /**
   * The keys of catalog records, private halves unwrapped.
   *
   * @throws NyalaException CORRUPTION naming the key seq and cluster key version of a record
   *     that does not unwrap (another cluster's key, a version the provider lacks, damage)
   */
  static List<TokenSigningKey> unwrap(Collection<SysTokenSigningKeyPB> records,
      KeyProvider keys) {
    List<TokenSigningKey> out = new ArrayList<>(records.size());
    for (SysTokenSigningKeyPB r : records) {
      String what = "token signing key " + r.getSeq();
      byte[] scalar;
      if (r.getPrivateKeyVersion() == UNWRAPPED && keys == null) {
        scalar = r.getWrappedPrivateKey().toByteArray();
      } else if (r.getPrivateKeyVersion() == UNWRAPPED) {
        throw NyalaException.corruption("%s in the sys catalog is stored unwrapped, but this "
            + "cluster encrypts at rest: its keys are always wrapped", what);
      } else if (keys == null) {
        throw NyalaException.corruption("%s in the sys catalog is wrapped by cluster key version "
            + "%d, but this master has no cluster key (--encrypt_data_at_rest)", what,
            r.getPrivateKeyVersion());
      } else {
        scalar = unwrapScalar(r, keys, what);
      }
      try {
        out.add(TokenSigningKey.of(r.getSeq(), r.getPublicKeyDer().toByteArray(), scalar,
            r.getExpireTimeMs(), r.getSigningSinceMs()));
      } finally {
        Arrays.fill(scalar, (byte) 0);
      }
    }
    return out;
  }

  private static byte[] unwrapScalar(SysTokenSigningKeyPB r, KeyProvider keys, String what) {
    try {
      return keys.unwrapServerKey(new WrappedKey(r.getPrivateKeyVersion(),
          r.getWrappedPrivateKey().toByteArray()), what).bytes();
    } catch (NyalaException e) {
      throw NyalaException.corruption("%s in the sys catalog does not unwrap with cluster key "
          + "version %d: %s", what, r.getPrivateKeyVersion(), e.detail());
    }
  }
}
