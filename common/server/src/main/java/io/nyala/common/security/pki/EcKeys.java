package io.nyala.common.security.pki;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
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
