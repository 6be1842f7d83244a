package io.nyala.common.security.token;

import com.google.protobuf.ByteString;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.security.pki.EcKeys;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.Signature;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The leader master's token signing keys and the tokens it signs with them (docs/architecture.md,
 * "Who may call what"). One key signs; every {@code rotationMs} the next one (published since
 * the last rotation) takes over and a new next one is made; an old key's public half stays
 * published until the last token it signed expires, so a rotation never invalidates a token.
 * Rotation happens on the first use after it is due (the leader's ticker and every heartbeat
 * answer ask, so that is soon): no thread of its own. Keys live in memory only: a new leader
 * starts with fresh keys, and clients whose token it does not know authenticate again.
 *
 * <p>Thread-safe: every method is synchronized on this object.
 */
public final class TokenSigner {
  /** One key: the private half signs while it is the newest. */
  private record Key(long seq, KeyPair pair, long expireMs) {}

  private final LongSupplier clockMs;
  private final long validityMs;
  private final long rotationMs;
  /** Oldest first; guarded by this. */
  private final List<Key> keys = new ArrayList<>();
  /** Guarded by this. */
  private long nextSeq = 1;
  /** When the signing key started signing; guarded by this. */
  private long signingSinceMs;

  /**
   * @param clockMs wall-clock milliseconds (tokens carry absolute expiry times)
   * @param validityMs {@code --authn_token_validity_ms}
   * @param rotationMs {@code --token_signing_key_rotation_ms}
   */
  public TokenSigner(LongSupplier clockMs, long validityMs, long rotationMs) {
    if (validityMs <= 0 || rotationMs <= 0) {
      throw new IllegalArgumentException("token validity " + validityMs + " ms and key rotation "
          + rotationMs + " ms must be positive");
    }
    this.clockMs = clockMs;
    this.validityMs = validityMs;
    this.rotationMs = rotationMs;
  }

  /** A token for {@code user}, valid for the configured validity from now. */
  public synchronized SignedTokenPB sign(String user) {
    long now = clockMs.getAsLong();
    Key key = current(now);
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

  /** The public halves of every key a valid token may name, oldest first. */
  public synchronized List<TokenSigningPublicKeyPB> publicKeys() {
    current(clockMs.getAsLong());
    List<TokenSigningPublicKeyPB> out = new ArrayList<>(keys.size());
    for (Key k : keys) {
      out.add(TokenSigningPublicKeyPB.newBuilder().setSeq(k.seq())
          .setPublicKeyDer(ByteString.copyFrom(k.pair().getPublic().getEncoded()))
          .setExpireTimeMs(k.expireMs()).build());
    }
    return out;
  }

  /**
   * The signing key at {@code now}, rotating first if due; drops keys nothing valid names. The
   * newest key is always the next one: published a rotation before it signs, so servers that
   * learn keys from heartbeats know it before any token names it.
   */
  private Key current(long now) {
    keys.removeIf(k -> k.expireMs() < now);
    if (keys.size() < 2 || now - signingSinceMs >= rotationMs) {
      if (keys.isEmpty()) {
        keys.add(newKey());
      }
      int i = keys.size() - 1;
      Key next = keys.get(i);
      // It signs for rotationMs, and its last token lives validityMs more.
      keys.set(i, new Key(next.seq(), next.pair(), now + rotationMs + validityMs));
      keys.add(newKey());
      signingSinceMs = now;
    }
    return keys.get(keys.size() - 2);
  }

  /** A key that has not signed yet: valid until it has. */
  private Key newKey() {
    return new Key(nextSeq++, EcKeys.generate(), Long.MAX_VALUE);
  }
}
