package io.nyala.master.authn;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.AuthnTokenPB;
import io.nyala.common.proto.SignedTokenPB;
import io.nyala.common.proto.TokenSigningPublicKeyPB;
import io.nyala.common.proto.master.AuthenticateRequestPB;
import io.nyala.common.proto.master.AuthenticateResponsePB;
import io.nyala.common.security.token.CredentialVerifier;
import io.nyala.common.security.token.PasswordFileVerifier;
import io.nyala.common.security.token.TokenSigner;
import io.nyala.common.security.token.TokenSigningKeyStore;
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
 * <p>The signer's keys are kept in a {@link TokenSigningKeyStore} (the sys catalog) when the
 * master has one: in each term it leads, before its first use, the issuer has the signer take
 * the stored keys over, so a new leader signs on with its predecessor's keys.
 *
 * <p>Thread-safe: the signer and verifier are; the restored term is guarded by this.
 */
public final class TokenIssuer {
  private static final Logger LOG = LoggerFactory.getLogger(TokenIssuer.class);

  /** Null when {@code --user_credentials_file} is empty. */
  private final CredentialVerifier credentials;
  private final TokenSigner signer;
  private final TokenVerifier ownVerifier;
  private final boolean overTls;
  /** The term this master is the ready leader of, or -1. */
  private final LongSupplier leaderTerm;
  private final MetricRegistry.Counter issued;
  /** The term whose stored keys the signer holds; -1 before the first; guarded by this. */
  private long restoredTerm = -1;
  /** The term whose restore failure was logged; guarded by this. */
  private long failureLoggedTerm = -1;

  /**
   * @param credentials checks passwords; null when none are accepted
   * @param signer signs tokens and rotates its keys
   * @param ownVerifier this master's token check, fed the signer's keys by {@link #refresh}
   * @param overTls whether the RPC listener speaks TLS only
   * @param leaderTerm the term this master is the ready leader of, else -1: the signer takes
   *     the stored keys over once in each such term, before signing or publishing
   * @param metrics where {@code authn_tokens_issued_total} is counted
   */
  public TokenIssuer(CredentialVerifier credentials, TokenSigner signer,
      TokenVerifier ownVerifier, boolean overTls, LongSupplier leaderTerm,
      MetricRegistry metrics) {
    this.credentials = credentials;
    this.signer = signer;
    this.ownVerifier = ownVerifier;
    this.overTls = overTls;
    this.leaderTerm = leaderTerm;
    this.issued = metrics.counter("authn_tokens_issued_total",
        "Tokens this master signed for Authenticate calls");
  }

  /**
   * From the master's flags.
   *
   * @param credentialsFile {@code --user_credentials_file}, empty for none
   * @param store where the signing keys are kept; null to keep them in memory only
   * @throws io.nyala.common.NyalaException if the file is missing, exposed or malformed
   */
  public static TokenIssuer fromFlags(String credentialsFile, long validityMs, long rotationMs,
      LongSupplier clockMs, TokenVerifier ownVerifier, boolean overTls,
      TokenSigningKeyStore store, LongSupplier leaderTerm, MetricRegistry metrics) {
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
    return new TokenIssuer(c, new TokenSigner(clockMs, validityMs, rotationMs, store),
        ownVerifier, overTls, leaderTerm, metrics);
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
    restoreOncePerTerm();
    SignedTokenPB token = signer.sign(req.getUser());
    issued.inc();
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
    // None when the stored keys cannot be taken over: tablet servers then keep theirs.
    return restored() ? signer.publicKeys() : List.of();
  }

  /**
   * Gives this master's own token check the current keys (and rotates if due); leaves it as it
   * was (the stored public keys it checked with as a follower) while the stored keys cannot be
   * taken over.
   */
  public void refresh() {
    if (restored()) {
      ownVerifier.setKeys(signer.publicKeys());
    }
  }

  /** {@link #restoreOncePerTerm}, false on failure, which is logged once per term. */
  private boolean restored() {
    try {
      restoreOncePerTerm();
      return true;
    } catch (NyalaException e) {
      long term = leaderTerm.getAsLong();
      synchronized (this) {
        if (term != failureLoggedTerm) {
          failureLoggedTerm = term;
          LOG.error("cannot take the token signing keys over from the sys catalog in term {}; "
              + "signing no tokens: {}", term, e.getMessage());
        }
      }
      return false;
    }
  }

  /**
   * On a master that does not lead: checks tokens with {@code stored}, the keys the catalog
   * holds (the leader's), so a client of the leader is told NOT_LEADER, not refused.
   */
  public void followStored(List<TokenSigningPublicKeyPB> stored) {
    ownVerifier.setKeys(stored);
  }

  /**
   * Has the signer take the stored keys over if this master leads a term it has not restored
   * them in yet. A failure (a key that does not unwrap) is thrown, and tried again on the next
   * use, so the master never signs with keys of its own that hide the stored ones.
   */
  private synchronized void restoreOncePerTerm() {
    long term = leaderTerm.getAsLong();
    if (term < 0 || term == restoredTerm) {
      return;
    }
    signer.restore();
    restoredTerm = term;
    LOG.info("token signing keys taken over from the sys catalog in term {}", term);
  }
}
