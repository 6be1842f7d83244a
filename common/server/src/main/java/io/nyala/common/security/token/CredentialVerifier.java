package io.nyala.common.security.token;

/**
 * Checks the credential a client proves once to get a token: the seam where JWT or Kerberos
 * can later replace the password file ({@link PasswordFileVerifier}).
 */
public interface CredentialVerifier {
  /**
   * @param user the user name the client claims
   * @param password its password
   * @return whether the credential is valid; never says which half was wrong
   */
  boolean verify(String user, String password);
}
