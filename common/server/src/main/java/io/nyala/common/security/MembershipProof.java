package io.nyala.common.security;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A server's proof that it belongs to the cluster, sent with its certificate request to the
 * master's CA (docs/architecture.md, "TLS and the internal CA"): HMAC-SHA256 of the request's
 * DER, keyed by a key derived (HKDF) from the cluster key. Only a holder of the cluster key makes
 * it, and it binds that one request: a copy gives nobody a certificate for another key. Holding
 * the cluster key already opens every file and entry of the cluster, so the proof asks for no
 * secret a member lacks and gives an attacker who holds it nothing more.
 */
public final class MembershipProof {
  private static final byte[] INFO =
      "nyala certificate request membership v1".getBytes(StandardCharsets.US_ASCII);
  private static final String MAC = "HmacSHA256";

  private MembershipProof() {}

  /** The proof of {@code requestDer} under the cluster key of {@code version}. */
  public static byte[] of(KeyProvider keys, int version, byte[] requestDer) {
    byte[] key = Hkdf.deriveKey(keys.clusterKey(version), null, INFO, 256).bytes();
    try {
      Mac mac = Mac.getInstance(MAC);
      mac.init(new SecretKeySpec(key, MAC));
      return mac.doFinal(requestDer);
    } catch (GeneralSecurityException e) {
      throw new NyalaException(StatusCode.RUNTIME_ERROR, "cannot compute " + MAC + ": " + e, e);
    } finally {
      KeyMaterial.wipe(key);
    }
  }

  /**
   * Whether {@code proof} is the proof of {@code requestDer} under cluster key {@code version}
   * (compared in constant time).
   *
   * @throws NyalaException NOT_FOUND when the provider holds no such version, even after a reload
   */
  public static boolean verify(KeyProvider keys, int version, byte[] requestDer, byte[] proof) {
    return MessageDigest.isEqual(of(keys, version, requestDer), proof);
  }
}
