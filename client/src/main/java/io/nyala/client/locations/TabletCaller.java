package io.nyala.client.locations;

import io.nyala.client.rpc.Backoff;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.client.rpc.TransportException;
import io.nyala.client.stats.ClientCounters;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.ErrorPB;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one tablet RPC to the tablet's leader and retries until it succeeds, fails for good, or
 * the deadline passes. The same request object is re-sent on every attempt, so a write keeps its
 * {@code seq_no} across retries and the server can apply it exactly once.
 *
 * <p>Retry policy (see {@link #classify}): NOT_LEADER follows the hint if the hinted server holds
 * a replica, else drops the cached entry and tries another replica; an unreachable server or a
 * NOT_FOUND for the tablet likewise moves on and refreshes the locations; a server's
 * SERVICE_UNAVAILABLE or TIMED_OUT is retried on the same replica. Each retry waits with
 * exponential backoff and jitter. A tablet server's refusal of the call's token (expired, or
 * signed by a key it does not know: the token attacher then drops the token) is retried once,
 * so the retry authenticates again; a second refusal ends the call, never a renewal loop.
 * Other errors end the call with the server's error.
 *
 * <p>Each attempt has its own deadline, at most the per-attempt RPC timeout: a replica that took
 * the request and never answers (frozen, partitioned, or its answer lost after the write
 * committed) must not use up the whole operation deadline, or the retry that the exactly-once
 * protocol relies on would never be sent. A timed-out attempt counts as an unreachable replica.
 *
 * <p>Every attempt, failure and retry is counted in the client's {@link ClientCounters}.
 */
public final class TabletCaller {
  private static final Logger LOG = LoggerFactory.getLogger(TabletCaller.class);

  /** What a failure means for the next attempt. */
  public enum Disposition {
    /** Retry the same replica after a backoff. */
    RETRY_SAME,
    /** The replica is not (or no longer) the one to call: try another, refresh locations. */
    RETRY_ELSEWHERE,
    /** Give up: the error is the answer. */
    FAIL
  }

  /**
   * Sends the request to one replica.
   *
   * @param <R> the response type
   */
  @FunctionalInterface
  public interface Sender<R> {
    /**
     * Sends.
     *
     * @param tablet the tablet as currently cached
     * @param replica the replica to call
     * @param deadline this attempt's deadline (at most the per-attempt timeout)
     * @return the response; transport failures complete exceptionally
     */
    CompletableFuture<R> send(RemoteTablet tablet, Replica replica, Deadline deadline);
  }

  /**
   * A successful answer and who gave it.
   *
   * @param tablet the tablet called
   * @param replica the replica that answered
   * @param response its response
   * @param <R> the response type
   */
  public record Served<R>(RemoteTablet tablet, Replica replica, R response) {}

  private final Transport transport;
  private final Backoff backoff;
  private final long attemptTimeoutMs;
  private final ClientCounters counters;

  /**
   * A caller.
   *
   * @param transport the client's transport (for retry delays)
   * @param backoff the delays between attempts
   * @param attemptTimeoutMs the longest one attempt may wait for its answer before it is
   *     abandoned and retried (the operation's deadline still bounds the whole call)
   * @param counters where attempts, failures and retries are counted
   */
  public TabletCaller(Transport transport, Backoff backoff, long attemptTimeoutMs,
      ClientCounters counters) {
    if (attemptTimeoutMs <= 0) {
      throw new IllegalArgumentException(
          "attempt timeout must be positive, got " + attemptTimeoutMs + " ms");
    }
    this.transport = transport;
    this.backoff = backoff;
    this.attemptTimeoutMs = attemptTimeoutMs;
    this.counters = counters;
  }

  /** @return the client's counters, which this caller updates */
  public ClientCounters counters() {
    return counters;
  }

  /** @return the longest one attempt waits for its answer, in milliseconds */
  public long attemptTimeoutMs() {
    return attemptTimeoutMs;
  }

  /**
   * Calls the leader of the tablet covering {@code partitionKey}.
   *
   * @param what names the call for errors, e.g. {@code "write of 5 rows to tablet 3f2e"}
   * @param locations the table's location cache
   * @param partitionKey a key in the tablet's range (its start will do)
   * @param sender sends the request to a replica
   * @param errorOf extracts the response's error field
   * @param deadline when to give up with TIMED_OUT
   * @param <R> the response type
   * @return the answer; fails with a non-retriable error as the server sent it, or TIMED_OUT
   *     naming the last error
   */
  public <R> CompletableFuture<Served<R>> call(String what, TableLocations locations,
      byte[] partitionKey, Sender<R> sender, Function<R, ErrorPB> errorOf, Deadline deadline) {
    Call<R> c = new Call<>(what, locations, partitionKey, sender, errorOf, deadline);
    c.attempt();
    return c.result;
  }

  /**
   * How to react to a failed call; also updates the location cache accordingly (so scanners,
   * which continue on one replica outside this loop, share the policy).
   *
   * @param locations the table's cache
   * @param tablet the tablet called
   * @param replica the replica called
   * @param e what it failed with
   * @return what to do next
   */
  public static Disposition classify(TableLocations locations, RemoteTablet tablet,
      Replica replica, NyalaException e) {
    if (e instanceof TransportException te) {
      if (!te.isRetriable()) {
        return Disposition.FAIL;
      }
      tablet.demoteLeader(replica.uuid());
      locations.invalidate(tablet);
      return Disposition.RETRY_ELSEWHERE;
    }
    switch (e.code()) {
      case NOT_LEADER -> {
        tablet.demoteLeader(replica.uuid());
        boolean followHint = !e.leaderUuid().isEmpty() && !e.leaderUuid().equals(replica.uuid())
            && tablet.setLeader(e.leaderUuid());
        if (!followHint) {
          locations.invalidate(tablet);
        }
        return Disposition.RETRY_ELSEWHERE;
      }
      case NOT_FOUND -> {
        // Only "this server has no such tablet" is about locations; any other NOT_FOUND (say,
        // a column) is the answer. The tserver names the tablet in the former.
        if (!e.detail().contains(tablet.id())) {
          return Disposition.FAIL;
        }
        tablet.demoteLeader(replica.uuid());
        locations.invalidate(tablet);
        return Disposition.RETRY_ELSEWHERE;
      }
      case SERVICE_UNAVAILABLE, TIMED_OUT -> {
        return Disposition.RETRY_SAME;
      }
      default -> {
        return Disposition.FAIL;
      }
    }
  }

  /** One call's retry state; touched by one callback at a time. */
  private final class Call<R> {
    final String what;
    final TableLocations locations;
    final byte[] partitionKey;
    final Sender<R> sender;
    final Function<R, ErrorPB> errorOf;
    final Deadline deadline;
    final CompletableFuture<Served<R>> result = new CompletableFuture<>();
    /** Replicas that failed in this call, tried last. */
    final Set<String> avoid = new HashSet<>();
    int attempts;
    NyalaException lastError;
    /** Whether a refused token was already renewed in this call. */
    boolean tokenRenewed;

    Call(String what, TableLocations locations, byte[] partitionKey, Sender<R> sender,
        Function<R, ErrorPB> errorOf, Deadline deadline) {
      this.what = what;
      this.locations = locations;
      this.partitionKey = partitionKey;
      this.sender = sender;
      this.errorOf = errorOf;
      this.deadline = deadline;
    }

    void attempt() {
      if (deadline.expired()) {
        result.completeExceptionally(timedOut());
        return;
      }
      attempts++;
      locations.lookup(partitionKey, deadline).whenComplete((tablet, err) -> {
        if (err != null) {
          NyalaException e = NyalaException.from(err);
          if (e.code() == StatusCode.SERVICE_UNAVAILABLE && !deadline.expired()) {
            retryLater(e, null);
          } else {
            result.completeExceptionally(e);
          }
          return;
        }
        Replica replica = tablet.pickReplica(avoid);
        if (replica == null) {
          locations.invalidate(tablet);
          retryLater(NyalaException.unavailable("%s has no replicas in the master's locations",
              tablet), tablet.id());
          return;
        }
        counters.rpcSent();
        sender.send(tablet, replica, deadline.forAttempt(attemptTimeoutMs))
            .whenComplete((resp, sendErr) -> {
              try {
                onAnswer(tablet, replica, resp, sendErr);
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
              }
            });
      });
    }

    private void onAnswer(RemoteTablet tablet, Replica replica, R resp, Throwable err) {
      NyalaException e = null;
      if (err != null) {
        e = NyalaException.from(err);
      } else if (NyalaException.isError(errorOf.apply(resp))) {
        e = NyalaException.fromPb(errorOf.apply(resp));
      }
      if (e == null) {
        tablet.setLeader(replica.uuid());
        result.complete(new Served<>(tablet, replica, resp));
        return;
      }
      counters.rpcFailed(e.code());
      if (err != null && deadline.expired() && lastError != null) {
        // The call was cut by our own deadline; the error before it says more.
        result.completeExceptionally(timedOut());
        return;
      }
      if (e instanceof TransportException te && te.isUnauthenticated()) {
        LOG.debug("{}: token refused by {} ({}): {}", what, replica,
            tokenRenewed ? "already renewed, giving up" : "renewing once", e.getMessage());
        if (tokenRenewed) {
          result.completeExceptionally(e);
        } else {
          tokenRenewed = true;
          retryLater(e, tablet.id());
        }
        return;
      }
      Disposition d = classify(locations, tablet, replica, e);
      LOG.debug("{}: {} from {}: {}", what, d, replica, e.getMessage());
      if (d == Disposition.FAIL) {
        result.completeExceptionally(e);
        return;
      }
      if (d == Disposition.RETRY_ELSEWHERE) {
        avoid.add(replica.uuid());
        if (tablet.leader() != null) {
          avoid.remove(tablet.leader().uuid());
        }
      }
      retryLater(e, tablet.id());
    }

    private void retryLater(NyalaException e, String tabletId) {
      lastError = e;
      counters.rpcRetried(tabletId);
      long delay = Math.min(backoff.delayMillis(attempts - 1), deadline.remainingMillis());
      transport.delay(delay).whenComplete((v, err) -> {
        if (err != null) {
          result.completeExceptionally(err);
        } else {
          attempt();
        }
      });
    }

    private NyalaException timedOut() {
      return new NyalaException(StatusCode.TIMED_OUT, String.format(
          "%s timed out after %d ms (%d attempts); last error: %s", what,
          deadline.timeoutMillis(), attempts, lastError == null ? "none" : lastError.getMessage()),
          lastError);
    }
  }
}
