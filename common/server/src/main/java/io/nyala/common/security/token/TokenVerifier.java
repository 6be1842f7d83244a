package io.nyala.common.security.token;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.security.pki.EcKeys;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Checks client tokens offline against the token signing keys the leader master published
 * (docs/architecture.md, "Who may call what"): a tablet server gets them in heartbeat answers,
 * a master from its own {@link TokenSigner} or the catalog it applies. Knows no key until
 * {@link #setKeys} is called, so it refuses every token until then, as not known here yet.
 *
 * <p>A client sends its token with every call, and an ECDSA check costs far more than a small
 * call (a scan page, a write; docs/performance.md, "Scans"), so tokens whose signature checked
 * out are remembered by their exact bytes, at most {@value #CACHE_MAX} of them (the whole set is
 * dropped when full). A remembered token is still checked for expiry on every call, and
 * forgotten when its signing key leaves the key set; a token differing in any byte is checked in
 * full.
 *
 * <p>Thread-safe: the key set is replaced whole through a volatile field.
 */
public final class TokenVerifier {
  static final int CACHE_MAX = 4096;

  /** A token whose signature checked out with {@code key}. */
  private record Verified(String user, long expireTimeMs, long keySeq, PublicKey key) {}

  private final LongSupplier clockMs;
  /** Seq to key; replaced whole, never changed in place. */
  private volatile Map<Long, PublicKey> keys = Map.of();
  /** What {@link #setKeys} last took; guarded by this. */
  private List<TokenSigningPublicKeyPB> lastPublished = List.of();
  /** Checked tokens by their bytes; bounded by {@link #CACHE_MAX}. */
  private final Map<ByteString, Verified> verified = new ConcurrentHashMap<>();
  private final AtomicLong signatureChecks = new AtomicLong();

  /** @param clockMs wall-clock milliseconds, compared with tokens' expiry times */
  public TokenVerifier(LongSupplier clockMs) {
    this.clockMs = clockMs;
  }

  /**
   * Replaces the known keys with {@code published}.
   *
   * @throws NyalaException INVALID_ARGUMENT naming a key that is not an EC public key
   */
  public synchronized void setKeys(List<TokenSigningPublicKeyPB> published) {
    // Every heartbeat answer republishes the keys; the same set keeps the checked tokens.
    if (published.equals(lastPublished)) {
      return;
    }
    Map<Long, PublicKey> next = new HashMap<>();
    for (TokenSigningPublicKeyPB k : published) {
      try {
        next.put(k.getSeq(), KeyFactory.getInstance("EC")
            .generatePublic(new X509EncodedKeySpec(k.getPublicKeyDer().toByteArray())));
      } catch (GeneralSecurityException e) {
        throw NyalaException.invalidArgument("token signing key %d is not an EC public key: %s",
            k.getSeq(), e.getMessage());
      }
    }
    keys = Map.copyOf(next);
    verified.clear();
    lastPublished = List.copyOf(published);
  }

  /** The signatures checked so far (tokens not found among the remembered ones), for tests. */
  long signatureChecks() {
    return signatureChecks.get();
  }

  /** Whether any key is known yet. */
  public boolean hasKeys() {
    return !keys.isEmpty();
  }

  /**
   * The user a token proves.
   *
   * @param signedToken a serialized {@link SignedTokenPB}
   * @return the token's user
   * @throws NyalaException NOT_AUTHORIZED saying why: malformed, expired (naming user and time),
   *     or forged or from another cluster (bad signature, or an unknown key older than the
   *     newest known); SERVICE_UNAVAILABLE for a key newer than every known one, which has
   *     most likely not reached this server yet (retriable)
   */
  public String verify(byte[] signedToken) {
    ByteString bytes = ByteString.copyFrom(signedToken);
    Verified v = verified.get(bytes);
    if (v != null && keys.get(v.keySeq()) == v.key()) {
      checkNotExpired(v.user(), v.expireTimeMs());
      return v.user();
    }
    SignedTokenPB signed;
    AuthnTokenPB token;
    try {
      signed = SignedTokenPB.parseFrom(signedToken);
      token = AuthnTokenPB.parseFrom(signed.getTokenData());
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.notAuthorized("authentication token is malformed: %s", e.getMessage());
    }
    Map<Long, PublicKey> known = keys;
    PublicKey key = known.get(token.getSigningKeySeq());
    if (key == null) {
      throw unknownKey(token, known);
    }
    signatureChecks.incrementAndGet();
    if (!signatureValid(key, signed)) {
      throw NyalaException.notAuthorized("token of user '%s' has a bad signature (key %d): "
          + "forged or from another cluster", token.getUser(), token.getSigningKeySeq());
    }
    checkNotExpired(token.getUser(), token.getExpireTimeMs());
    if (verified.size() >= CACHE_MAX) {
      verified.clear();
    }
    verified.put(bytes, new Verified(token.getUser(), token.getExpireTimeMs(),
        token.getSigningKeySeq(), key));
    return token.getUser();
  }

  /**
   * The refusal of a token whose key is not in {@code known}. Keys get increasing seqs and reach
   * this server some time after the leader master made them (a follower master applies the
   * catalog entry, a tablet server hears of it in its next heartbeat answer), so a key newer
   * than every known one is most likely just not here yet: SERVICE_UNAVAILABLE, which clients
   * retry, or take to another server. One at or below the newest known seq left the set or
   * never was in it: forged or from another cluster.
   */
  private static NyalaException unknownKey(AuthnTokenPB token, Map<Long, PublicKey> known) {
    long seq = token.getSigningKeySeq();
    long newest = known.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
    if (seq > newest) {
      return NyalaException.unavailable("token of user '%s' names unknown signing key %d, newer "
          + "than %s: not known here yet (retry, or ask the leader master)", token.getUser(),
          seq, known.isEmpty() ? "any key known here (none yet)" : "key " + newest
          + ", the newest known here");
    }
    return NyalaException.notAuthorized("token of user '%s' names unknown signing key %d: "
        + "forged or from another cluster", token.getUser(), seq);
  }

  private void checkNotExpired(String user, long expireTimeMs) {
    if (expireTimeMs <= clockMs.getAsLong()) {
      throw NyalaException.notAuthorized("token of user '%s' expired at %s", user,
          Instant.ofEpochMilli(expireTimeMs));
    }
  }

  private static boolean signatureValid(PublicKey key, SignedTokenPB signed) {
    try {
      Signature s = Signature.getInstance(EcKeys.SIGNATURE_ALGORITHM);
      s.initVerify(key);
      s.update(signed.getTokenData().asReadOnlyByteBuffer());
      return s.verify(signed.getSignature().toByteArray());
    } catch (java.security.SignatureException e) {
      return false;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot verify " + EcKeys.SIGNATURE_ALGORITHM, e);
    }
  }
}
