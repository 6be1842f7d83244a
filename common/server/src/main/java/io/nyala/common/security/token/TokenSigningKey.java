package io.nyala.common.security.token;

import io.nyala.common.NyalaException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

/**
 * One token signing key as {@link TokenSigner} keeps it and a {@link TokenSigningKeyStore}
 * persists it (docs/architecture.md, "Client tokens"). {@link #toString()} names the key, never
 * its private half.
 *
 * @param seq the key's number, named by the tokens it signs; never reused within a cluster
 * @param pair the EC P-256 key pair
 * @param expireMs when the last token it signed (or will sign) expires; {@link Long#MAX_VALUE}
 *     while it is the next key, which has signed nothing yet
 * @param signingSinceMs when it started signing; 0 while it is the next key
 */
public record TokenSigningKey(long seq, KeyPair pair, long expireMs, long signingSinceMs) {
  /** The length of a P-256 private scalar. */
  private static final int SCALAR_BYTES = 32;

  /** Whether it has not signed yet (the next key). */
  public boolean isNext() {
    return signingSinceMs == 0;
  }

  /** The public half as X.509 SubjectPublicKeyInfo (DER), as published. */
  public byte[] publicKeyDer() {
    return pair.getPublic().getEncoded();
  }

  /**
   * The private half as its 32-byte big-endian scalar: the raw key a cluster key wraps
   * ({@code KeyProvider.wrapServerKey} takes AES-sized keys, and 32 bytes is one). The caller
   * wipes it after use.
   */
  public byte[] privateScalar() {
    byte[] s = ((ECPrivateKey) pair.getPrivate()).getS().toByteArray();
    byte[] out = new byte[SCALAR_BYTES];
    // BigInteger adds a sign byte or drops leading zeros; right-align into 32 bytes.
    int n = Math.min(s.length, SCALAR_BYTES);
    System.arraycopy(s, s.length - n, out, SCALAR_BYTES - n, n);
    Arrays.fill(s, (byte) 0);
    return out;
  }

  /**
   * A key rebuilt from its persisted halves.
   *
   * @throws NyalaException CORRUPTION naming the key if the halves are not an EC key pair
   */
  public static TokenSigningKey of(long seq, byte[] publicKeyDer, byte[] privateScalar,
      long expireMs, long signingSinceMs) {
    try {
      KeyFactory f = KeyFactory.getInstance("EC");
      PublicKey pub = f.generatePublic(new X509EncodedKeySpec(publicKeyDer));
      ECPrivateKeySpec spec = new ECPrivateKeySpec(new BigInteger(1, privateScalar),
          ((ECPublicKey) pub).getParams());
      return new TokenSigningKey(seq, new KeyPair(pub, f.generatePrivate(spec)), expireMs,
          signingSinceMs);
    } catch (GeneralSecurityException | ClassCastException e) {
      throw NyalaException.corruption("token signing key %d is not an EC key pair: %s", seq,
          e.getMessage());
    }
  }

  /** This key with another expiry and signing start (the next key taking over). */
  TokenSigningKey signingFrom(long sinceMs, long newExpireMs) {
    return new TokenSigningKey(seq, pair, newExpireMs, sinceMs);
  }

  @Override
  public String toString() {
    return "TokenSigningKey[" + seq + ", expires " + expireMs + ", signing since "
        + signingSinceMs + "]";
  }
}
