package io.nyala.common.security.token;

import io.nyala.common.NyalaException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * PBKDF2 password hashes, as the JDK computes them, in the text form a credentials file holds:
 * {@code pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>}.
 */
public final class PasswordHash {
  private static final String PREFIX = "pbkdf2-sha256";
  private static final int ITERATIONS = 210_000;
  private static final int SALT_BYTES = 16;
  private static final int HASH_BITS = 256;
  private static final SecureRandom RANDOM = new SecureRandom();

  private PasswordHash() {}

  /** A new hash of {@code password} with a fresh salt. */
  public static String hash(String password) {
    byte[] salt = new byte[SALT_BYTES];
    RANDOM.nextBytes(salt);
    Base64.Encoder b64 = Base64.getEncoder();
    return PREFIX + "$" + ITERATIONS + "$" + b64.encodeToString(salt) + "$"
        + b64.encodeToString(derive(password, salt, ITERATIONS));
  }

  /**
   * Whether {@code password} matches {@code encoded}, compared in constant time.
   *
   * @throws NyalaException INVALID_ARGUMENT if {@code encoded} is not a hash of this form
   */
  public static boolean matches(String password, String encoded) {
    String[] parts = encoded.split("\\$");
    if (parts.length != 4 || !parts[0].equals(PREFIX)) {
      throw NyalaException.invalidArgument("password hash is not of the form %s$<iterations>"
          + "$<salt>$<hash>", PREFIX);
    }
    try {
      int iterations = Integer.parseInt(parts[1]);
      byte[] salt = Base64.getDecoder().decode(parts[2]);
      byte[] expected = Base64.getDecoder().decode(parts[3]);
      return MessageDigest.isEqual(expected, derive(password, salt, iterations));
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("password hash has a bad field: %s", e.getMessage());
    }
  }

  private static byte[] derive(String password, byte[] salt, int iterations) {
    PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, HASH_BITS);
    try {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec)
          .getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK lacks PBKDF2WithHmacSHA256", e);
    } finally {
      spec.clearPassword();
    }
  }
}
