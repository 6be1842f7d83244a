package io.nyala.common.security.cert;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.tls.WireTls;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's certificate from the leader master's CA, got at start and renewed while the server
 * runs (docs/architecture.md, "TLS and the internal CA"). Once two thirds of the presented
 * certificate's validity have passed ({@link ServerCredentials#needsRenewal}) it asks the masters
 * for a new one for the same key ({@link CertificateRequester#renew}, which checks and stores
 * it) and swaps it into the server's TLS ({@link WireTls#swapCredentials}): connections made
 * after that present it, connections already made keep going.
 *
 * <p>It runs as one task at a time on the server's maintenance pool, rescheduling itself: at the
 * renewal time, and after a failure with a backoff from {@link #MIN_DELAY} doubling up to a
 * tenth of the certificate's validity (within {@link #MIN_DELAY} and {@link #MAX_BACKOFF}).
 * A failure is logged at WARN naming the server and the reason, at most once per
 * {@link #WARN_EVERY} (the rest at DEBUG); once the certificate has expired at ERROR, saying so:
 * peers then refuse the server's new connections, and it keeps asking. Its state is touched only
 * by the running task (the executor orders one run before the next).
 */
public final class CertificateRenewal {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateRenewal.class);
  /** The shortest wait between two attempts: no spinning on a certificate of seconds. */
  static final Duration MIN_DELAY = Duration.ofSeconds(1);
  /** The longest backoff after failures. */
  static final Duration MAX_BACKOFF = Duration.ofMinutes(5);
  /** The longest sleep before a look, so a wall-clock jump delays renewal by at most this. */
  static final Duration MAX_DELAY = Duration.ofHours(1);
  static final Duration WARN_EVERY = Duration.ofMinutes(1);

  private final String name;
  /** Null for a server that issues its own ({@link #selfIssued}). */
  private final CertificateRequester requester;
  /** Gets a new certificate for the server's key, stored; called when the current is due. */
  private final Supplier<ServerCredentials> renewer;
  private final CredentialFiles files;
  private final String uuid;
  private final List<String> hosts;
  private final BooleanSupplier stop;
  private final Clock clock;

  private WireTls tls;
  private MetricRegistry.Counter renewals;
  private MetricRegistry.Counter failuresTotal;
  /** Failures since the last success; the backoff doubles with each. */
  private int failures;
  /** When the last failure was logged above DEBUG, or null. */
  private Instant lastWarn;
  /** Whether the expiry of the presented certificate was logged (at once, not rate-limited). */
  private boolean expiryReported;
  /** What the last failed attempt reported, or null after a success (tests, status). */
  private volatile String lastFailure;

  /**
   * The renewal of a server reached at {@code hosts} that asks {@code masters}, proving its
   * membership with {@code keys}, for certificates of {@code trustedCa}, kept in {@code files}.
   */
  public static CertificateRenewal of(String name, List<HostPort> masters, KeyProvider keys,
      X509Certificate trustedCa, CredentialFiles files, String uuid, Collection<String> hosts,
      BooleanSupplier stop) {
    Clock wall = Clock.systemUTC();
    return new CertificateRenewal(name, new CertificateRequester(name, masters, keys, trustedCa,
        wall), files, uuid, hosts, stop, wall);
  }

  /**
   * The renewal of a server that issues its own certificates ({@code issue}: a new one for its
   * key, stored), such as a master holding the CA's key.
   */
  public static CertificateRenewal selfIssued(String name, Supplier<ServerCredentials> issue,
      BooleanSupplier stop) {
    return new CertificateRenewal(name, null, issue, null, "", List.of(), stop,
        Clock.systemUTC());
  }

  /**
   * With the clock that tells when the certificate is due or expired: the wall clock, since
   * X.509 validity is wall-clock time (tests give one they move).
   */
  CertificateRenewal(String name, CertificateRequester requester, CredentialFiles files,
      String uuid, Collection<String> hosts, BooleanSupplier stop, Clock clock) {
    this(name, requester, () -> requester.renew(files, uuid, hosts, stop), files, uuid, hosts,
        stop, clock);
  }

  private CertificateRenewal(String name, CertificateRequester requester,
      Supplier<ServerCredentials> renewer, CredentialFiles files, String uuid,
      Collection<String> hosts, BooleanSupplier stop, Clock clock) {
    this.name = name;
    this.requester = requester;
    this.renewer = renewer;
    this.files = files;
    this.uuid = uuid;
    this.hosts = List.copyOf(hosts);
    this.stop = stop;
    this.clock = clock;
  }

  /**
   * The server's first credentials: {@link CertificateRequester#obtain}, before it serves; not
   * for a {@link #selfIssued} renewal.
   */
  public ServerCredentials obtain(long timeoutMs) {
    return requester.obtain(files, uuid, hosts, timeoutMs, stop);
  }

  /**
   * Renews {@code tls}'s certificate from now on, on {@code pool}; counts renewals in {@code
   * metrics} ({@code certificate_renewals_total}, {@code certificate_renewal_failures_total}).
   */
  public void start(ScheduledExecutorService pool, MetricRegistry metrics, WireTls tls) {
    bind(metrics, tls);
    schedule(pool, untilDue(tls.credentials(), clock.instant()));
  }

  /** What {@link #start} does but the scheduling: tests call {@link #attempt} themselves. */
  void bind(MetricRegistry metrics, WireTls tls) {
    this.tls = tls;
    renewals = metrics.counter("certificate_renewals_total", "Certificates this server got "
        + "renewed from the master's CA while it ran");
    failuresTotal = metrics.counter("certificate_renewal_failures_total", "Failed attempts to "
        + "renew this server's certificate from the master's CA (each is retried)");
  }

  private void schedule(ScheduledExecutorService pool, Duration delay) {
    try {
      pool.schedule(() -> {
        Duration next = attempt();
        if (!stop.getAsBoolean()) {
          schedule(pool, next);
        }
      }, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      LOG.debug("{}: certificate renewal stops: the maintenance pool is shut down", name);
    }
  }

  /**
   * One look: renews the certificate if it is due. Returns how long to wait before the next.
   * Package-private for tests, which call it with a clock of their own instead of waiting.
   */
  Duration attempt() {
    ServerCredentials now = tls.credentials();
    Instant t = clock.instant();
    if (!now.needsRenewal(t)) {
      return untilDue(now, t);
    }
    try {
      ServerCredentials next = renewer.get();
      tls.swapCredentials(next);
      renewals.inc();
      failures = 0;
      lastWarn = null;
      expiryReported = false;
      lastFailure = null;
      LOG.info("{}: renewed its certificate from the master's CA: serial {} valid until {} "
          + "replaces serial {} (until {}); new connections present it", name,
          serial(next), next.expiresAt(), serial(now), now.expiresAt());
      return untilDue(next, clock.instant());
    } catch (RuntimeException e) {
      failuresTotal.inc();
      failures++;
      Duration retry = backoff(now);
      report(now, t, NyalaException.from(e).getMessage(), retry);
      return retry;
    }
  }

  /** What the last failed attempt reported, or null after a success or before any failure. */
  String lastFailure() {
    return lastFailure;
  }

  /** Logs a failure: rate-limited WARN, ERROR once the certificate has expired, else DEBUG. */
  private void report(ServerCredentials now, Instant t, String why, Duration retry) {
    boolean expired = !t.isBefore(now.expiresAt());
    String message = expired
        ? String.format("%s: its certificate (serial %s) EXPIRED at %s and renewing it has "
            + "failed %d time(s) in a row: %s. Peers refuse its new connections until a master "
            + "issues it a new one; it keeps asking, next in %d s", name, serial(now),
            now.expiresAt(), failures, why, retry.toSeconds())
        : String.format("%s: renewing its certificate (serial %s, expires at %s) failed (%d in "
            + "a row): %s; retrying in %d s", name, serial(now), now.expiresAt(), failures, why,
            retry.toSeconds());
    lastFailure = message;
    boolean newlyExpired = expired && !expiryReported;
    if (lastWarn != null && t.isBefore(lastWarn.plus(WARN_EVERY)) && !newlyExpired) {
      LOG.debug("{}", message);
    } else if (expired) {
      lastWarn = t;
      expiryReported = true;
      LOG.error("{}", message);
    } else {
      lastWarn = t;
      LOG.warn("{}", message);
    }
  }

  /** The wait after {@link #failures} failures in a row. */
  private Duration backoff(ServerCredentials now) {
    Duration validity = Duration.between(now.leaf().getNotBefore().toInstant(),
        now.expiresAt());
    Duration cap = clamp(validity.dividedBy(10), MIN_DELAY, MAX_BACKOFF);
    Duration d = MIN_DELAY.multipliedBy(1L << Math.min(20, failures - 1));
    return d.compareTo(cap) > 0 ? cap : d;
  }

  private static Duration untilDue(ServerCredentials c, Instant now) {
    return clamp(Duration.between(now, c.renewAt()), MIN_DELAY, MAX_DELAY);
  }

  private static Duration clamp(Duration d, Duration min, Duration max) {
    return d.compareTo(min) < 0 ? min : d.compareTo(max) > 0 ? max : d;
  }

  private static String serial(ServerCredentials c) {
    return c.leaf().getSerialNumber().toString(16);
  }
}
