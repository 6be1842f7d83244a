package io.nyala.client.authn;

import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.AuthenticateRequestPB;
import io.nyala.common.proto.master.AuthenticateResponsePB;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's current authentication token (docs/architecture.md, "Who may call what"): got
 * from the leader master with the user's credentials on first use, renewed in the background
 * once two thirds of its validity have passed, and got again at once when a server says it
 * expired or when it is about to. Only one Authenticate call is in flight at a time. Neither the
 * password nor the token is ever logged.
 *
 * <p>Thread-safe: the token and the call in flight are guarded by this object.
 */
public final class TokenAuthenticator {
  private static final Logger LOG = LoggerFactory.getLogger(TokenAuthenticator.class);
  /** Retry delay of a failed background renewal. */
  private static final long RENEW_RETRY_MS = 1000;

  /** A token and when it stops being valid (master's clock), when it was got (ours). */
  private record Token(String base64, long expireMs, long obtainedMs) {}

  private final UserCredentials credentials;
  private final MasterProxy masters;
  private final Transport transport;
  private final long timeoutMs;
  private final LongSupplier clockMs;
  /** Guarded by this. */
  private Token current;
  /** The Authenticate call in flight, or null; guarded by this. */
  private CompletableFuture<Token> inFlight;
  /** Whether a background renewal is due on the timer; guarded by this. */
  private boolean renewalScheduled;

  /**
   * @param credentials the user's credentials
   * @param masters finds the leader master, which alone signs tokens
   * @param transport runs the renewal timer
   * @param timeoutMs how long one Authenticate may take, retries included
   * @param clockMs wall-clock milliseconds, compared with the tokens' expiry times
   */
  public TokenAuthenticator(UserCredentials credentials, MasterProxy masters, Transport transport,
      long timeoutMs, LongSupplier clockMs) {
    this.credentials = credentials;
    this.masters = masters;
    this.transport = transport;
    this.timeoutMs = timeoutMs;
    this.clockMs = clockMs;
  }

  /**
   * The token to send now (base64 of a signed token), authenticating first, blocking, when there
   * is none yet or the one held is within a tenth of its validity of expiring.
   *
   * @throws NyalaException NOT_AUTHORIZED for wrong credentials, the masters' error otherwise
   */
  public String currentToken() {
    Token t;
    synchronized (this) {
      t = current;
    }
    long now = clockMs.getAsLong();
    if (t != null && now < t.expireMs() - (t.expireMs() - t.obtainedMs()) / 10) {
      return t.base64();
    }
    try {
      return fetch().join().base64();
    } catch (CompletionException e) {
      throw NyalaException.from(e.getCause());
    }
  }

  /**
   * A server refused {@code token} (expired, or a tablet server does not know its signing key):
   * the next call authenticates again, unless the token was already replaced.
   */
  public synchronized void expired(String token) {
    if (current != null && current.base64().equals(token)) {
      current = null;
    }
  }

  /** The Authenticate call in flight, starting one if none is. */
  private synchronized CompletableFuture<Token> fetch() {
    if (inFlight != null) {
      return inFlight;
    }
    AuthenticateRequestPB req = AuthenticateRequestPB.newBuilder()
        .setUser(credentials.user()).setPassword(credentials.password()).build();
    long started = clockMs.getAsLong();
    CompletableFuture<Token> f = masters.<AuthenticateRequestPB, AuthenticateResponsePB>call(
            "Authenticate", req, (stub, q, obs) -> stub.authenticate(q, obs),
            AuthenticateResponsePB::getError, Deadline.after(timeoutMs))
        .thenApply(resp -> new Token(
            Base64.getEncoder().encodeToString(resp.getToken().toByteArray()),
            resp.getExpireTimeMs(), started))
        .exceptionally(e -> {
          NyalaException n = NyalaException.from(e instanceof CompletionException c
              ? c.getCause() : e);
          throw new CompletionException(new NyalaException(n.code(), "cannot authenticate user '"
              + credentials.user() + "' with the masters: " + n.detail(), n));
        });
    inFlight = f;
    f.whenComplete((t, e) -> done(f, t, e));
    return f;
  }

  private void done(CompletableFuture<Token> f, Token t, Throwable e) {
    long delay;
    synchronized (this) {
      if (inFlight == f) {
        inFlight = null;
      }
      if (t != null) {
        current = t;
      }
      if (renewalScheduled || current == null || transport.isClosed()) {
        return; // one renewal chain at most; none before a first token
      }
      delay = t == null ? RENEW_RETRY_MS : (t.expireMs() - t.obtainedMs()) * 2 / 3;
      renewalScheduled = true;
    }
    if (t == null) {
      LOG.debug("renewing the token of user '{}' failed; retrying in {} ms: {}",
          credentials.user(), delay, e.getMessage());
    }
    try {
      transport.schedule(this::renew, Math.max(1, delay));
    } catch (NyalaException closed) {
      // The client closed meanwhile: nothing left to renew for.
    }
  }

  /** On the timer thread: starts a renewal and returns at once. */
  private void renew() {
    synchronized (this) {
      renewalScheduled = false;
    }
    fetch();
  }
}
