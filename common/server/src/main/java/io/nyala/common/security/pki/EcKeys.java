package io.nyala.common.security.pki;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.util.Arrays;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The one key type and signature algorithm of the PKI: EC P-256 keys signing with
 * SHA256withECDSA, both from the JDK's provider (Bouncy Castle only builds the structures).
 */
public final class EcKeys {
  /** The signature algorithm of every certificate and request the PKI makes. */
  public static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";
  private static final String CURVE = "secp256r1";

  private EcKeys() {}

  /** A fresh P-256 key pair. */
  public static KeyPair generate() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec(CURVE));
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new NyalaException(StatusCode.RUNTIME_ERROR,
          "cannot generate an EC " + CURVE + " key pair: " + e.getMessage(), e);
    }
  }

  /** A signer of certificates or requests with {@code key}. */
  static ContentSigner signer(PrivateKey key) {
    try {
      return new JcaContentSignerBuilder(SIGNATURE_ALGORITHM).build(key);
    } catch (OperatorCreationException e) {
      throw NyalaException.invalidArgument("cannot sign with a %s key: %s", key.getAlgorithm(),
          e.getMessage());
    }
  }

  /**
   * The 32-byte big-endian scalar of a P-256 private key: what a store wraps (a whole PKCS#8
   * encoding is not a multiple of 8 bytes, which RFC 3394 needs). Wipe it after use.
   */
  public static byte[] privateScalar(PrivateKey key) {
    if (!(key instanceof ECPrivateKey ec)) {
      throw NyalaException.invalidArgument("not an EC private key: %s", key.getAlgorithm());
    }
    byte[] s = ec.getS().toByteArray();
    byte[] out = new byte[32];
    int len = Math.min(s.length, 32);
    System.arraycopy(s, s.length - len, out, 32 - len, len);
    Arrays.fill(s, (byte) 0);
    return out;
  }

  /** The private key of {@code scalar} on the curve of {@code publicKey} (its other half). */
  public static PrivateKey privateKey(byte[] scalar, PublicKey publicKey) {
    if (!(publicKey instanceof ECPublicKey ec)) {
      throw NyalaException.invalidArgument("not an EC public key: %s",
          publicKey.getAlgorithm());
    }
    try {
      return KeyFactory.getInstance("EC").generatePrivate(
          new ECPrivateKeySpec(new BigInteger(1, scalar), ec.getParams()));
    } catch (GeneralSecurityException e) {
      throw NyalaException.invalidArgument("not a P-256 private key: %s", e.getMessage());
    }
  }

  /**
   * The key pair of a stored P-256 private key: its public half is the curve's generator times
   * the private scalar (a PKCS#8 file holds the private half only).
   */
  public static KeyPair keyPairOf(PrivateKey key) {
    if (!(key instanceof ECPrivateKey ec)) {
      throw NyalaException.invalidArgument("not an EC private key: %s", key.getAlgorithm());
    }
    X9ECParameters curve = ECNamedCurveTable.getByName(CURVE);
    org.bouncycastle.math.ec.ECPoint q = curve.getG().multiply(ec.getS()).normalize();
    try {
      PublicKey pub = KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(
          new ECPoint(q.getAffineXCoord().toBigInteger(), q.getAffineYCoord().toBigInteger()),
          ec.getParams()));
      return new KeyPair(pub, key);
    } catch (GeneralSecurityException e) {
      throw NyalaException.invalidArgument("not a P-256 private key: %s", e.getMessage());
    }
  }

  /** Whether {@code privateKey} is the private half of {@code publicKey}. */
  static boolean matches(PrivateKey privateKey, PublicKey publicKey) {
    try {
      byte[] probe = "nyala key pair probe".getBytes(StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(SIGNATURE_ALGORITHM);
      s.initSign(privateKey);
      s.update(probe);
      byte[] sig = s.sign();
      s.initVerify(publicKey);
      s.update(probe);
      return s.verify(sig);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
