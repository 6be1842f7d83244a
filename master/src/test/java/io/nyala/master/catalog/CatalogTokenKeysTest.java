package io.nyala.master.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTokenSigningKeyPB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.token.TokenSigner;
import io.nyala.common.security.token.TokenSigningKey;
import io.nyala.common.security.token.TokenSigningKeyStore;
import io.nyala.common.security.token.TokenVerifier;
import java.nio.file.Path;
import java.security.interfaces.ECPrivateKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token signing keys kept in the catalog (docs/architecture.md, "Client tokens"): a signer whose
 * store is a {@link CatalogState} fed the very batches {@link CatalogTokenKeys} writes, under a
 * real cluster key file; a fake clock.
 */
@Timeout(30)
class CatalogTokenKeysTest {
  private static final long VALIDITY = 3_000;
  private static final long ROTATION = 10_000;

  @TempDir
  Path dir;

  private final AtomicLong now = new AtomicLong(1_000_000);
  private KeyProvider clusterKey;
  private StateStore store;

  /** The catalog's side of a save and a load, minus Ratis: each batch applied to one state. */
  private static final class StateStore implements TokenSigningKeyStore {
    final CatalogState state = new CatalogState();
    final List<SysCatalogBatchPB> batches = new ArrayList<>();
    final KeyProvider keys;
    /** The error the next saves fail with (as a lost leadership would), or null. */
    NyalaException failWith;

    StateStore(KeyProvider keys) {
      this.keys = keys;
    }

    @Override
    public List<TokenSigningKey> load() {
      return CatalogTokenKeys.unwrap(state.tokenSigningKeys(), keys);
    }

    @Override
    public void save(List<TokenSigningKey> put, List<Long> deleted) {
      if (failWith != null) {
        throw failWith;
      }
      SysCatalogBatchPB b = CatalogTokenKeys.batch(put, deleted, keys);
      batches.add(b);
      b.getOpsList().forEach(state::apply);
    }
  }

  @BeforeEach
  void setUp() {
    clusterKey = FileKeyProvider.openOrCreate(dir.resolve("cluster.key"), 256);
    store = new StateStore(clusterKey);
  }

  private TokenSigner signer() {
    return new TokenSigner(now::get, VALIDITY, ROTATION, store);
  }

  private static long seqOf(SignedTokenPB t) throws Exception {
    return AuthnTokenPB.parseFrom(t.getTokenData()).getSigningKeySeq();
  }

  @Test
  void theFirstTokenStoresTheSigningAndNextKeysWithTheirPrivateHalvesWrapped() {
    TokenSigner signer = signer();
    signer.sign("alice");
    assertThat(store.batches).hasSize(1);
    assertThat(store.state.tokenSigningKeys()).extracting(SysTokenSigningKeyPB::getSeq)
        .containsExactly(1L, 2L);
    for (TokenSigningKey k : signer.keys()) {
      SysTokenSigningKeyPB r = store.state.tokenSigningKeys().stream()
          .filter(x -> x.getSeq() == k.seq()).findFirst().orElseThrow();
      assertThat(r.getPublicKeyDer().toByteArray()).isEqualTo(k.publicKeyDer());
      assertThat(r.getExpireTimeMs()).isEqualTo(k.expireMs());
      assertThat(r.getPrivateKeyVersion()).isEqualTo(clusterKey.currentVersion());
      // The record holds no run of the private scalar, only its wrap.
      assertThat(indexOf(r.toByteArray(), k.privateScalar())).isEqualTo(-1);
      assertThat(r.getWrappedPrivateKey().size()).isEqualTo(40);
    }
    assertThat(signer.keys().get(0).signingSinceMs()).isEqualTo(now.get());
    assertThat(signer.keys().get(1).isNext()).isTrue();
  }

  @Test
  void aRestoredSignerSignsOnWithTheStoredKeyAndItsOldTokensStillVerify() throws Exception {
    SignedTokenPB before = signer().sign("alice");
    int written = store.batches.size();
    now.addAndGet(VALIDITY / 2);

    TokenSigner successor = signer();
    successor.restore();
    SignedTokenPB after = successor.sign("bob");
    assertThat(seqOf(after)).isEqualTo(seqOf(before));
    assertThat(store.batches).as("no new key before rotation is due").hasSize(written);

    TokenVerifier tserver = new TokenVerifier(now::get);
    tserver.setKeys(successor.publicKeys());
    assertThat(tserver.verify(before.toByteArray())).isEqualTo("alice");
    assertThat(tserver.verify(after.toByteArray())).isEqualTo("bob");
  }

  @Test
  void aRestoredSignerRotatesWhenDueToTheKeyPublishedARotationBefore() throws Exception {
    TokenSigner first = signer();
    first.sign("alice");
    List<TokenSigningPublicKeyPB> published = first.publicKeys();
    now.addAndGet(ROTATION);

    TokenSigner successor = signer();
    successor.restore();
    SignedTokenPB t = successor.sign("alice");
    assertThat(seqOf(t)).isEqualTo(published.get(1).getSeq());
    assertThat(store.state.tokenSigningKeys()).extracting(SysTokenSigningKeyPB::getSeq)
        .containsExactly(1L, 2L, 3L);
    TokenVerifier tserver = new TokenVerifier(now::get);
    tserver.setKeys(published);
    assertThat(tserver.verify(t.toByteArray())).isEqualTo("alice");
  }

  @Test
  void expiredKeysLeaveTheCatalogInTheBatchThatAddsANewKey() {
    TokenSigner signer = signer();
    signer.sign("alice");           // 1 signs, 2 next
    now.addAndGet(ROTATION);
    signer.sign("alice");           // 2 signs, 3 next; 1 lives until its last token expired
    now.addAndGet(ROTATION);
    signer.sign("alice");           // 3 signs, 4 next; 1 expired long ago
    SysCatalogBatchPB last = store.batches.get(store.batches.size() - 1);
    assertThat(last.getOpsList()).filteredOn(SysCatalogOpPB::hasPutTokenSigningKey)
        .extracting(op -> op.getPutTokenSigningKey().getSeq()).containsExactly(3L, 4L);
    assertThat(last.getOpsList()).filteredOn(op -> op.getOpCase()
            == SysCatalogOpPB.OpCase.DELETE_TOKEN_SIGNING_KEY_SEQ)
        .extracting(SysCatalogOpPB::getDeleteTokenSigningKeySeq).containsExactly(1L);
    assertThat(store.state.tokenSigningKeys()).extracting(SysTokenSigningKeyPB::getSeq)
        .containsExactly(2L, 3L, 4L);
  }

  @Test
  void replayAndSnapshotRestoreGiveTheSameKeys() {
    TokenSigner signer = signer();
    for (int i = 0; i < 4; i++) {
      signer.sign("alice");
      now.addAndGet(ROTATION);
    }
    CatalogState replayed = new CatalogState();
    store.batches.forEach(b -> b.getOpsList().forEach(replayed::apply));
    CatalogState restored = CatalogState.fromSnapshot(store.state.toSnapshot(3, 17));
    assertThat(List.copyOf(replayed.tokenSigningKeys()))
        .isEqualTo(List.copyOf(store.state.tokenSigningKeys()))
        .isEqualTo(List.copyOf(restored.tokenSigningKeys()))
        .hasSize(3);
    assertThat(CatalogTokenKeys.unwrap(restored.tokenSigningKeys(), clusterKey))
        .extracting(k -> ((ECPrivateKey) k.pair().getPrivate()).getS())
        .isEqualTo(signer.keys().stream()
            .map(k -> ((ECPrivateKey) k.pair().getPrivate()).getS()).toList());
  }

  @Test
  void aKeyThatDoesNotUnwrapIsACorruptionNamingItsSeqAndClusterKeyVersion() {
    signer().sign("alice");
    KeyProvider otherCluster = FileKeyProvider.openOrCreate(dir.resolve("other.key"), 256);
    assertThatThrownBy(() -> CatalogTokenKeys.unwrap(store.state.tokenSigningKeys(),
        otherCluster))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("token signing key 1 in the sys catalog does not unwrap with "
            + "cluster key version " + clusterKey.currentVersion());
  }

  @Test
  void aKeyWhoseSaveFailedIsNeitherUsedNorPublished() throws Exception {
    TokenSigner signer = signer();
    store.failWith = NyalaException.unavailable("catalog write timed out");
    assertThatThrownBy(() -> signer.sign("alice"))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.SERVICE_UNAVAILABLE))
        .hasMessageContaining("cannot store token signing key 2 before using it");
    assertThat(signer.publicKeys()).isEmpty();

    store.failWith = null;
    SignedTokenPB t = signer.sign("alice");
    now.addAndGet(ROTATION);
    store.failWith = NyalaException.unavailable("catalog write timed out");
    // The rotation due now is not stored, so the keys published stay as they were.
    assertThat(signer.publicKeys()).extracting(TokenSigningPublicKeyPB::getSeq)
        .containsExactly(1L, 2L);
    assertThatThrownBy(() -> signer.sign("alice")).hasMessageContaining("key 3");
    assertThat(store.state.tokenSigningKeys()).extracting(SysTokenSigningKeyPB::getSeq)
        .containsExactly(seqOf(t), 2L);
  }

  @Test
  void withoutAClusterKeyTheKeysAreStoredAsTheyAreAndASuccessorSignsOnWithThem()
      throws Exception {
    store = new StateStore(null);
    SignedTokenPB before = signer().sign("alice");
    for (SysTokenSigningKeyPB r : store.state.tokenSigningKeys()) {
      assertThat(r.getPrivateKeyVersion()).isEqualTo(CatalogTokenKeys.UNWRAPPED);
    }
    TokenSigner successor = signer();
    successor.restore();
    assertThat(seqOf(successor.sign("bob"))).isEqualTo(seqOf(before));
    TokenVerifier tserver = new TokenVerifier(now::get);
    tserver.setKeys(successor.publicKeys());
    assertThat(tserver.verify(before.toByteArray())).isEqualTo("alice");

    // A cluster that encrypts never has an unwrapped key, and one that does not cannot unwrap.
    assertThatThrownBy(() -> CatalogTokenKeys.unwrap(store.state.tokenSigningKeys(),
        clusterKey)).hasMessageContaining("token signing key 1 in the sys catalog is stored "
            + "unwrapped, but this cluster encrypts at rest");
    StateStore wrapped = new StateStore(clusterKey);
    store = wrapped;
    signer().sign("carol");
    assertThatThrownBy(() -> CatalogTokenKeys.unwrap(wrapped.state.tokenSigningKeys(), null))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.CORRUPTION))
        .hasMessageContaining("is wrapped by cluster key version "
            + clusterKey.currentVersion() + ", but this master has no cluster key");
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
