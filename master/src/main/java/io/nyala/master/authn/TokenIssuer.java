package io.nyala.master.authn;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.proto.master.AuthenticateRequestPB;
import io.nyala.common.proto.master.AuthenticateResponsePB;
import io.nyala.common.security.token.CredentialVerifier;
import io.nyala.common.security.token.PasswordFileVerifier;
import io.nyala.common.security.token.TokenSigner;
import io.nyala.common.security.token.TokenVerifier;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers Authenticate on the leader master: checks the credential ({@link CredentialVerifier})
 * and signs a token ({@link TokenSigner}); and publishes the signing keys, to tablet servers in
 * heartbeat answers and to this master's own token check. Refuses over plaintext, where the
 * password would travel in the clear, and when no credentials file is configured.
 *
 * <p>Thread-safe: the signer and verifier are.
 */
public final class TokenIssuer {
  private static final Logger LOG = LoggerFactory.getLogger(TokenIssuer.class);

  /** Null when {@code --user_credentials_file} is empty. */
  private final CredentialVerifier credentials;
  private final TokenSigner signer;
  private final TokenVerifier ownVerifier;
  private final boolean overTls;

  /**
   * @param credentials checks passwords; null when none are accepted
   * @param signer signs tokens and rotates its keys
   * @param ownVerifier this master's token check, fed the signer's keys by {@link #refresh}
   * @param overTls whether the RPC listener speaks TLS only
   */
  public TokenIssuer(CredentialVerifier credentials, TokenSigner signer,
      TokenVerifier ownVerifier, boolean overTls) {
    this.credentials = credentials;
    this.signer = signer;
    this.ownVerifier = ownVerifier;
    this.overTls = overTls;
  }

  /**
   * From the master's flags.
   *
   * @param credentialsFile {@code --user_credentials_file}, empty for none
   * @throws io.nyala.common.NyalaException if the file is missing, exposed or malformed
   */
  public static TokenIssuer fromFlags(String credentialsFile, long validityMs, long rotationMs,
      LongSupplier clockMs, TokenVerifier ownVerifier, boolean overTls) {
    if (validityMs <= 0) {
      throw NyalaException.invalidArgument("--authn_token_validity_ms=%d: must be positive",
          validityMs);
    }
    if (rotationMs <= 0) {
      throw NyalaException.invalidArgument("--token_signing_key_rotation_ms=%d: must be "
          + "positive", rotationMs);
    }
    CredentialVerifier c = credentialsFile.isEmpty() ? null
        : PasswordFileVerifier.read(Path.of(credentialsFile));
    return new TokenIssuer(c, new TokenSigner(clockMs, validityMs, rotationMs), ownVerifier,
        overTls);
  }

  /**
   * A token for the request's user; the caller has checked that this master leads.
   *
   * @throws NyalaException NOT_SUPPORTED over plaintext or without credentials file,
   *     NOT_AUTHORIZED for a wrong user or password (not saying which)
   */
  public AuthenticateResponsePB authenticate(AuthenticateRequestPB req) {
    if (!overTls) {
      throw new NyalaException(StatusCode.NOT_SUPPORTED, "Authenticate is "
          + "refused over plaintext: the password would travel in the clear; start the masters "
          + "with --rpc_encryption and connect with a trusted CA file");
    }
    if (credentials == null) {
      throw new NyalaException(StatusCode.NOT_SUPPORTED, "this master accepts "
          + "no credentials: start it with --user_credentials_file");
    }
    if (!credentials.verify(req.getUser(), req.getPassword())) {
      LOG.info("Authenticate refused for user '{}'", req.getUser());
      throw NyalaException.notAuthorized("user '%s': wrong user name or password",
          req.getUser());
    }
    SignedTokenPB token = signer.sign(req.getUser());
    refresh();
    long expire;
    try {
      expire = AuthnTokenPB.parseFrom(token.getTokenData()).getExpireTimeMs();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a token this master just signed does not parse", e);
    }
    return AuthenticateResponsePB.newBuilder().setToken(token).setExpireTimeMs(expire).build();
  }

  /** The public keys tablet servers need, rotating first if due. */
  public List<TokenSigningPublicKeyPB> publicKeys() {
    return signer.publicKeys();
  }

  /** Gives this master's own token check the current keys (and rotates if due). */
  public void refresh() {
    ownVerifier.setKeys(signer.publicKeys());
  }
}
