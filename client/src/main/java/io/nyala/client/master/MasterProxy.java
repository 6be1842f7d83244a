package io.nyala.client.master;

import io.grpc.stub.StreamObserver;
import io.nyala.client.rpc.Backoff;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.client.rpc.TransportException;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends master RPCs to whichever master leads. Only the leader serves DDL and locations;
 * followers answer NOT_LEADER, with the leader's address when they know it.
 *
 * <p>Per call: start at the last known leader (else the first configured master). On NOT_LEADER
 * go to the hinted leader, or else the next configured master; on an unreachable master go to
 * the next one. Moving to a master not yet tried in this round is immediate; coming back to one
 * already tried means a whole round failed (an election is probably running), so wait with
 * exponential backoff first. Each attempt has its own deadline (at most the attempt timeout): a
 * master that does not answer in time counts as unreachable. A master's own SERVICE_UNAVAILABLE
 * or TIMED_OUT (e.g. still loading its catalog) is retried on the same master after a backoff.
 * Every other error ends the call.
 *
 * <p>Thread-safe; the only shared state is the leader guess, a volatile.
 */
public final class MasterProxy {
  private static final Logger LOG = LoggerFactory.getLogger(MasterProxy.class);

  /**
   * Starts one master RPC on a stub, e.g. {@code MasterServiceStub::createTable}.
   *
   * @param <Q> the request type
   * @param <R> the response type
   */
  @FunctionalInterface
  public interface Invoker<Q, R> {
    /**
     * Starts the call.
     *
     * @param stub a stub bound to the chosen master and the deadline
     * @param request the request
     * @param observer receives the response
     */
    void invoke(MasterServiceStub stub, Q request, StreamObserver<R> observer);
  }

  private final List<HostPort> masters;
  private final Transport transport;
  private final Backoff backoff;
  private final long attemptTimeoutMs;
  /** The master that last answered as leader; null until one has. */
  private volatile HostPort leader;

  /**
   * A proxy over the given masters.
   *
   * @param masters the configured master RPC addresses, at least one
   * @param transport the client's transport
   * @param backoff the delays between rounds
   * @param attemptTimeoutMs the longest one attempt waits for a master's answer before the call
   *     moves on to the next master, so that a dead master that swallows packets never holds a
   *     call until its deadline; positive
   */
  public MasterProxy(List<HostPort> masters, Transport transport, Backoff backoff,
      long attemptTimeoutMs) {
    if (masters.isEmpty()) {
      throw NyalaException.invalidArgument("no master addresses given");
    }
    if (attemptTimeoutMs <= 0) {
      throw NyalaException.invalidArgument("master attempt timeout must be positive, got %d ms",
          attemptTimeoutMs);
    }
    this.masters = List.copyOf(masters);
    this.transport = transport;
    this.backoff = backoff;
    this.attemptTimeoutMs = attemptTimeoutMs;
  }

  /** @return the configured master addresses */
  public List<HostPort> masters() {
    return masters;
  }

  /** @return the master that last answered as leader, or null if none has yet */
  public HostPort knownLeader() {
    return leader;
  }

  /**
   * Calls the leader master.
   *
   * @param what names the call for errors, e.g. {@code "CreateTable 'metrics'"}
   * @param request the request
   * @param invoker starts the call on a stub
   * @param errorOf extracts the response's error field
   * @param deadline when to give up with TIMED_OUT
   * @param <Q> the request type
   * @param <R> the response type
   * @return the leader's successful response; fails with the leader's error, or TIMED_OUT naming
   *     the last error seen
   */
  public <Q, R> CompletableFuture<R> call(String what, Q request, Invoker<Q, R> invoker,
      Function<R, ErrorPB> errorOf, Deadline deadline) {
    Call<Q, R> c = new Call<>(what, request, invoker, errorOf, deadline);
    HostPort start = leader;
    c.attempt(start != null ? start : masters.get(0));
    return c.result;
  }

  private HostPort nextAfter(HostPort target) {
    int i = masters.indexOf(target);
    return masters.get((i + 1) % masters.size());
  }

  /** One call's retry state; touched by one callback at a time. */
  private final class Call<Q, R> {
    final String what;
    final Q request;
    final Invoker<Q, R> invoker;
    final Function<R, ErrorPB> errorOf;
    final Deadline deadline;
    final CompletableFuture<R> result = new CompletableFuture<>();
    final Set<HostPort> triedThisRound = new HashSet<>();
    /** Hinted addresses, not among the configured masters, that could not be reached. */
    final Set<HostPort> unreachableHints = new HashSet<>();
    /** The configured master tried last: where the turn goes on after a hinted address. */
    HostPort lastConfigured;
    int rounds;
    int attempts;
    NyalaException lastError;

    Call(String what, Q request, Invoker<Q, R> invoker, Function<R, ErrorPB> errorOf,
        Deadline deadline) {
      this.what = what;
      this.request = request;
      this.invoker = invoker;
      this.errorOf = errorOf;
      this.deadline = deadline;
    }

    void attempt(HostPort target) {
      if (deadline.expired()) {
        result.completeExceptionally(timedOut());
        return;
      }
      attempts++;
      triedThisRound.add(target);
      if (masters.contains(target)) {
        lastConfigured = target;
      }
      transport.<R>call(target,
              obs -> invoker.invoke(transport.master(target,
                  deadline.forAttempt(attemptTimeoutMs)), request, obs))
          .whenComplete((resp, err) -> {
            try {
              onResponse(target, resp, err);
            } catch (RuntimeException e) {
              result.completeExceptionally(e);
            }
          });
    }

    private void onResponse(HostPort target, R resp, Throwable err) {
      if (err != null) {
        NyalaException e = NyalaException.from(err);
        if (deadline.expired() && lastError != null) {
          // The call was cut by our own deadline; the error before it says more.
          result.completeExceptionally(timedOut());
        } else if (e instanceof TransportException te && te.isRetriable()) {
          lastError = e;
          forgetLeader(target);
          if (!masters.contains(target)) {
            unreachableHints.add(target);
          }
          moveTo(nextTurn(target));
        } else if (e instanceof TransportException te && te.isUnauthenticated()
            && !triedThisRound.containsAll(masters)) {
          // Only the leader knows the keys of the tokens it signs: a follower's refusal says
          // nothing until every master has been asked.
          lastError = e;
          forgetLeader(target);
          attempt(nextTurn(target));
        } else {
          result.completeExceptionally(e);
        }
        return;
      }
      ErrorPB pb = errorOf.apply(resp);
      if (!NyalaException.isError(pb)) {
        leader = target;
        result.complete(resp);
        return;
      }
      NyalaException e = NyalaException.fromPb(pb);
      lastError = e;
      if (e.code() == StatusCode.NOT_LEADER) {
        forgetLeader(target);
        // A hint is the leader's peer address: one master is enough to find the others, but a
        // client outside the servers' network may not reach it (a container's name,
        // docs/architecture.md, "Listeners and addresses"). One that failed is not followed
        // again in this call; the configured masters are tried in turn instead.
        HostPort hint = e.leaderRpcAddress();
        boolean follow = hint != null && !hint.equals(target)
            && !unreachableHints.contains(hint);
        moveTo(follow ? hint : nextTurn(target));
      } else if (e.code() == StatusCode.SERVICE_UNAVAILABLE || e.code() == StatusCode.TIMED_OUT) {
        retryAfterBackoff(target);
      } else {
        result.completeExceptionally(e);
      }
    }

    /**
     * The configured master after {@code target}, or, when {@code target} was a hinted address,
     * after the configured master tried last.
     */
    private HostPort nextTurn(HostPort target) {
      return nextAfter(masters.contains(target) || lastConfigured == null ? target
          : lastConfigured);
    }

    private void forgetLeader(HostPort target) {
      if (target.equals(leader)) {
        leader = null;
      }
    }

    private void moveTo(HostPort next) {
      if (triedThisRound.contains(next)) {
        retryAfterBackoff(next);
      } else {
        attempt(next);
      }
    }

    private void retryAfterBackoff(HostPort next) {
      triedThisRound.clear();
      long delay = Math.min(backoff.delayMillis(rounds++), deadline.remainingMillis());
      LOG.debug("{}: retrying on {} in {} ms after {}", what, next, delay, lastError.getMessage());
      transport.delay(delay).whenComplete((v, err) -> {
        if (err != null) {
          result.completeExceptionally(err);
        } else {
          attempt(next);
        }
      });
    }

    private NyalaException timedOut() {
      return new NyalaException(StatusCode.TIMED_OUT, String.format(
          "%s timed out after %d ms (%d attempts, masters %s); last error: %s", what,
          deadline.timeoutMillis(), attempts, HostPort.toString(masters),
          lastError == null ? "none" : lastError.getMessage()), lastError);
    }
  }
}
