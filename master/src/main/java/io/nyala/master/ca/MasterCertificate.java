package io.nyala.master.ca;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.security.cert.CertificateRenewal;
import io.nyala.common.security.cert.CredentialFiles;
import io.nyala.common.security.cert.StoredCredentials;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.tls.WireTls;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A master's own certificate from the cluster's CA, for a master started with {@code
 * --trusted_ca_file} and no {@code --tls_cert_file} (docs/architecture.md, "TLS and the internal
 * CA"). The first masters of a cluster must join the catalog's mutual-TLS Raft group before any
 * leader exists, so a master given the CA's key ({@code --tls_ca_key_file}) issues its own
 * ({@link #selfIssue}); a master without it asks the leader master as a tablet server does
 * (the role's {@code CertificateRequester}), leaving itself out of the masters it asks
 * ({@link #others}), and when no leader answers says that the first masters need the CA key
 * ({@link #noLeader}). A master with no other master to ask starts only from a stored
 * certificate that is still valid ({@link #storedAlone}). Either way the key is the server's own,
 * made once in its {@link CredentialFiles}, and a stored certificate is reused while good.
 */
public final class MasterCertificate {
  private static final Logger LOG = LoggerFactory.getLogger(MasterCertificate.class);

  private final String master;
  private final CredentialFiles files;
  private final List<String> hosts;
  private final X509Certificate trustedCa;
  private final Clock clock;

  /**
   * @param master the master as messages name it ({@code master m-1})
   * @param files where it keeps its key and certificate
   * @param hosts the hosts it is reached at: its certificate's names
   * @param trustedCa {@code --trusted_ca_file}
   * @param clock the wall clock, for X.509 validity
   */
  public MasterCertificate(String master, CredentialFiles files, List<String> hosts,
      X509Certificate trustedCa, Clock clock) {
    this.master = master;
    this.files = files;
    this.hosts = List.copyOf(hosts);
    this.trustedCa = trustedCa;
    this.clock = clock;
  }

  /**
   * The stored credentials while good, else a certificate {@code ca} issues now for the stored
   * key ({@code CN=<uuid>}, one subjectAltName per host), stored in their place.
   *
   * @param ca the operator's CA ({@code --tls_ca_key_file} with {@code --trusted_ca_file})
   * @param validity {@code --server_certificate_validity_s}, cut to the CA's own end
   */
  public ServerCredentials selfIssue(CertificateAuthority ca, String uuid, Duration validity) {
    StoredCredentials stored = StoredCredentials.load(files, hosts, trustedCa, clock.instant());
    if (stored.verdict() == StoredCredentials.Verdict.GOOD) {
      ServerCredentials own = stored.credentials();
      LOG.info("{}: using its stored certificate, renewed after {}", master, own.renewAt());
      return own;
    }
    X509Certificate leaf = ca.issue(stored.request(uuid, hosts), validity);
    ServerCredentials own = stored.replaceWith(files, List.of(leaf, ca.certificate()), trustedCa,
        "--tls_ca_key_file");
    LOG.info("{}: {}; issued its own certificate with the CA of --tls_ca_key_file, valid until "
        + "{}", master, stored.reason(), own.expiresAt());
    return own;
  }

  /**
   * What renews a self-issued certificate while the master runs: a new one from {@code ca} for
   * the stored key ({@link #selfIssue}) once the presented one is due.
   */
  public CertificateRenewal selfRenewal(CertificateAuthority ca, String uuid, Duration validity,
      BooleanSupplier stop) {
    return CertificateRenewal.selfIssued(master, () -> selfIssue(ca, uuid, validity), stop);
  }

  /**
   * Starts {@code renewal} (null: nothing to renew) on a thread of its own: asking the other
   * masters may wait on them, which the master's ticker must not. {@code onClose} ends it.
   */
  public static void startRenewal(CertificateRenewal renewal, String name,
      MetricRegistry metrics, WireTls tls, Consumer<AutoCloseable> onClose) {
    if (renewal == null) {
      return;
    }
    ScheduledExecutorService pool = Executors.newSingleThreadScheduledExecutor(
        LogContext.threadFactory(name, "cert-renewal"));
    onClose.accept(pool::shutdownNow);
    renewal.start(pool, metrics, tls);
  }

  /**
   * The stored credentials of a master that has no other master to ask (the only one of its
   * cluster) and no CA key: usable while within their validity, even when due for renewal.
   *
   * @throws NyalaException INVALID_ARGUMENT naming the master, the reason and the fix when none
   *     is stored or the stored one is not usable
   */
  public ServerCredentials storedAlone() {
    StoredCredentials stored = StoredCredentials.load(files, hosts, trustedCa, clock.instant());
    if (stored.verdict() == StoredCredentials.Verdict.UNUSABLE) {
      throw NyalaException.invalidArgument("%s: --trusted_ca_file without --tls_cert_file asks "
          + "the leader master for a certificate, but --master_addresses names no other master "
          + "and %s (in %s): give it --tls_ca_key_file (the CA's key) to issue its own", master,
          stored.reason(), files.dir());
    }
    if (stored.verdict() == StoredCredentials.Verdict.DUE) {
      LOG.warn("{}: {}, and there is no other master to renew it: presenting it until its end; "
          + "give --tls_ca_key_file to renew it at a start", master, stored.reason());
    }
    return stored.credentials();
  }

  /**
   * The masters of {@code masters} other than this one, reached at any of {@code self} (nulls
   * skipped): a master must not ask itself, whose RPC server is not up yet.
   */
  public static List<HostPort> others(List<HostPort> masters, HostPort... self) {
    List<HostPort> mine = Arrays.stream(self).filter(Objects::nonNull).toList();
    return masters.stream().filter(m -> !mine.contains(m)).toList();
  }

  /**
   * {@code e}, what asking the other masters ended with, explained for a master: when no leader
   * answered in time (TIMED_OUT), that the first masters of a cluster cannot ask, there being
   * no leader until enough of them run, and need {@code --tls_ca_key_file}; other errors (a
   * refusal) as they are.
   */
  public static NyalaException noLeader(String master, NyalaException e) {
    if (e.code() != StatusCode.TIMED_OUT) {
      return e;
    }
    return new NyalaException(StatusCode.TIMED_OUT, e.detail() + ". A master given "
        + "--trusted_ca_file without --tls_cert_file or --tls_ca_key_file asks the leader master "
        + "for its certificate, and there is no leader until a majority of the masters run: the "
        + "first masters of a cluster must issue their own with --tls_ca_key_file (the CA's "
        + "key); " + master + " can ask once they lead", e);
  }
}
