package io.nyala.common.security.token;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.security.pki.EcKeys;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader master's token signing keys and the tokens it signs with them (docs/architecture.md,
 * "Who may call what"). One key signs; every {@code rotationMs} the next one (published since
 * the last rotation) takes over and a new next one is made; an old key's public half stays
 * published until the last token it signed expires, so a rotation never invalidates a token.
 * Rotation happens on the first use after it is due (the leader's ticker and every heartbeat
 * answer ask, so that is soon): no thread of its own.
 *
 * <p>With a {@link TokenSigningKeyStore} every rotation is stored before its keys are used:
 * the new next key, the new signing key's expiry and the removal of expired keys in one
 * {@link TokenSigningKeyStore#save}; if that fails nothing changes here (a token is not signed,
 * the keys published stay as they were). {@link #restore} takes the stored keys over, so a new
 * leader goes on with the keys tablet servers and clients already know. Without a store the
 * keys live in memory only.
 *
 * <p>Thread-safe: every method is synchronized on this object (a store's save included).
 */
public final class TokenSigner {
  private static final Logger LOG = LoggerFactory.getLogger(TokenSigner.class);

  private final LongSupplier clockMs;
  private final long validityMs;
  private final long rotationMs;
  /** Null: keys in memory only. */
  private final TokenSigningKeyStore store;
  /** Oldest first; the newest is the next key, the one before it signs. Guarded by this. */
  private final List<TokenSigningKey> keys = new ArrayList<>();
  /** Expired keys dropped here but still stored: removed by the next save. Guarded by this. */
  private final List<Long> dropped = new ArrayList<>();
  /** Guarded by this. */
  private long nextSeq = 1;

  /**
   * A signer whose keys live in memory only.
   *
   * @param clockMs wall-clock milliseconds (tokens carry absolute expiry times)
   * @param validityMs {@code --authn_token_validity_ms}
   * @param rotationMs {@code --token_signing_key_rotation_ms}
   */
  public TokenSigner(LongSupplier clockMs, long validityMs, long rotationMs) {
    this(clockMs, validityMs, rotationMs, null);
  }

  /**
   * A signer that stores every key in {@code store} before using it.
   *
   * @param clockMs wall-clock milliseconds (tokens carry absolute expiry times)
   * @param validityMs {@code --authn_token_validity_ms}
   * @param rotationMs {@code --token_signing_key_rotation_ms}
   * @param store where keys are kept; null for memory only
   */
  public TokenSigner(LongSupplier clockMs, long validityMs, long rotationMs,
      TokenSigningKeyStore store) {
    if (validityMs <= 0 || rotationMs <= 0) {
      throw new IllegalArgumentException("token validity " + validityMs + " ms and key rotation "
          + rotationMs + " ms must be positive");
    }
    this.clockMs = clockMs;
    this.validityMs = validityMs;
    this.rotationMs = rotationMs;
    this.store = store;
  }

  /**
   * A token for {@code user}, valid for the configured validity from now.
   *
   * @throws NyalaException if a rotation is due and its keys cannot be stored
   */
  public synchronized SignedTokenPB sign(String user) {
    long now = clockMs.getAsLong();
    TokenSigningKey key = current(now);
    byte[] data = AuthnTokenPB.newBuilder().setUser(user).setExpireTimeMs(now + validityMs)
        .setSigningKeySeq(key.seq()).build().toByteArray();
    try {
      Signature s = Signature.getInstance(EcKeys.SIGNATURE_ALGORITHM);
      s.initSign(key.pair().getPrivate());
      s.update(data);
      return SignedTokenPB.newBuilder().setTokenData(ByteString.copyFrom(data))
          .setSignature(ByteString.copyFrom(s.sign())).build();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a token with key " + key.seq(), e);
    }
  }

  /**
   * The public halves of every key a valid token may name, oldest first; rotates first if due.
   * A rotation whose keys cannot be stored is logged and the current keys are published.
   */
  public synchronized List<TokenSigningPublicKeyPB> publicKeys() {
    try {
      current(clockMs.getAsLong());
    } catch (NyalaException e) {
      LOG.warn("token signing keys not rotated: {}", e.getMessage());
    }
    List<TokenSigningPublicKeyPB> out = new ArrayList<>(keys.size());
    for (TokenSigningKey k : keys) {
      out.add(TokenSigningPublicKeyPB.newBuilder().setSeq(k.seq())
          .setPublicKeyDer(ByteString.copyFrom(k.publicKeyDer()))
          .setExpireTimeMs(k.expireMs()).build());
    }
    return out;
  }

  /**
   * Replaces the keys held here by the store's (nothing without a store): what a master does
   * when it becomes the leader, so it signs on with the keys its predecessor stored and makes a
   * new one only when a rotation is due or none is stored.
   *
   * @throws NyalaException the store's error, naming the key that cannot be read back; the
   *     keys held here are then left as they were
   */
  public synchronized void restore() {
    if (store == null) {
      return;
    }
    List<TokenSigningKey> loaded = new ArrayList<>(store.load());
    loaded.sort(Comparator.comparingLong(TokenSigningKey::seq));
    keys.clear();
    keys.addAll(loaded);
    dropped.clear();
    for (TokenSigningKey k : loaded) {
      nextSeq = Math.max(nextSeq, k.seq() + 1);
    }
    LOG.info("restored {} token signing keys {}", loaded.size(),
        loaded.stream().map(TokenSigningKey::seq).toList());
  }

  /** The keys held now, oldest first (for tests and pages). */
  public synchronized List<TokenSigningKey> keys() {
    return List.copyOf(keys);
  }

  /**
   * The signing key at {@code now}, rotating first if due; drops keys nothing valid names. The
   * newest key is always the next one: published a rotation before it signs, so servers that
   * learn keys from heartbeats know it before any token names it.
   */
  private TokenSigningKey current(long now) {
    keys.removeIf(k -> {
      if (k.expireMs() < now) {
        dropped.add(k.seq());
        return true;
      }
      return false;
    });
    int n = keys.size();
    if (n >= 2 && !keys.get(n - 2).isNext() && now - keys.get(n - 2).signingSinceMs()
        < rotationMs) {
      return keys.get(n - 2);
    }
    rotate(now);
    return keys.get(keys.size() - 2);
  }

  /**
   * The next key starts signing (one is made first if there is none) and a new next key is
   * made; stored first, then taken over.
   */
  private void rotate(long now) {
    List<TokenSigningKey> next = new ArrayList<>(keys);
    long seq = nextSeq;
    if (next.isEmpty()) {
      next.add(newKey(seq++));
    }
    int i = next.size() - 1;
    // It signs for rotationMs, and its last token lives validityMs more.
    TokenSigningKey signing = next.get(i).signingFrom(now, now + rotationMs + validityMs);
    next.set(i, signing);
    TokenSigningKey fresh = newKey(seq++);
    next.add(fresh);
    if (store != null) {
      try {
        store.save(List.of(signing, fresh), List.copyOf(dropped));
      } catch (NyalaException e) {
        if (e.code() == StatusCode.NOT_LEADER) {
          throw e;
        }
        throw new NyalaException(e.code(), "cannot store token signing key " + fresh.seq()
            + " before using it: " + e.detail(), e);
      }
    }
    keys.clear();
    keys.addAll(next);
    dropped.clear();
    nextSeq = seq;
  }

  /** A key that has not signed yet: valid until it has. */
  private static TokenSigningKey newKey(long seq) {
    return new TokenSigningKey(seq, EcKeys.generate(), Long.MAX_VALUE, 0);
  }
}
