package io.nyala.common.security.cert;

import com.google.protobuf.ByteString;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.MembershipProof;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a server its certificate from the leader master's CA (docs/architecture.md, "TLS and the
 * internal CA"), before the server starts its listeners: a tablet server given only {@code
 * --trusted_ca_file}, and a master given it without {@code --tls_ca_key_file}. The stored
 * certificate is used again while {@link StoredCredentials} finds it good; else the server sends
 * a new request for its stored key, {@code CN=<uuid>} with one subjectAltName per host, with its
 * membership proof, over TLS that trusts the CA and presents nothing (the server has no
 * certificate yet). Masters that do not lead, are unreachable or have no CA yet are retried until
 * the deadline; a refusal (no or a wrong proof, a CA the cluster does not trust) ends the start at
 * once with the master's reason. A certificate that is only due for renewal is asked for a short
 * while ({@value #RENEWAL_WAIT_MS} ms at most) and kept when no leader answers: it still works
 * until its end, and a later start renews it.
 */
public final class CertificateRequester {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateRequester.class);
  /** How long a start waits for the renewal of a certificate that is still valid. */
  static final long RENEWAL_WAIT_MS = 10_000;
  private static final long RPC_DEADLINE_MS = 10_000;
  private static final long MAX_BACKOFF_MS = 2_000;

  private final String server;
  private final List<HostPort> masters;
  private final KeyProvider keys;
  private final X509Certificate trustedCa;
  private final Clock clock;

  /**
   * @param server the asking server as messages name it ({@code tablet server ts-1})
   * @param masters the masters to ask ({@code --master_addresses}; a master leaves itself out)
   * @param keys the cluster key the membership proof is keyed from; null when the server does
   *     not encrypt at rest (it then cannot prove membership, and the start is refused)
   * @param trustedCa {@code --trusted_ca_file}: the CA every certificate must come from
   * @param clock the wall clock, for the X.509 validity of the stored certificate
   */
  public CertificateRequester(String server, List<HostPort> masters, KeyProvider keys,
      X509Certificate trustedCa, Clock clock) {
    this.server = server;
    this.masters = List.copyOf(masters);
    this.keys = keys;
    this.trustedCa = trustedCa;
    this.clock = clock;
  }

  /** The hosts of {@code addresses} (nulls skipped), in order, each once: the request's names. */
  public static List<String> hosts(HostPort... addresses) {
    Set<String> out = new LinkedHashSet<>();
    for (HostPort a : addresses) {
      if (a != null) {
        out.add(a.host());
      }
    }
    return List.copyOf(out);
  }

  /**
   * The server's credentials: the stored ones while still good, else newly issued and stored
   * in {@code files}.
   *
   * @param stop whether the server is closing (stops the retries)
   * @throws NyalaException naming the server: INVALID_ARGUMENT without a cluster key or masters,
   *     the master's refusal, or TIMED_OUT naming the masters and the last answer
   */
  public ServerCredentials obtain(CredentialFiles files, String uuid, Collection<String> hosts,
      long timeoutMs, BooleanSupplier stop) {
    checkCanAsk();
    StoredCredentials stored = StoredCredentials.load(files, hosts, trustedCa, clock.instant());
    if (stored.verdict() == StoredCredentials.Verdict.GOOD) {
      ServerCredentials own = stored.credentials();
      LOG.info("{}: using its stored certificate from the cluster's CA, renewed after {}",
          server, own.renewAt());
      return own;
    }
    LOG.info("{}: {}; asking the leader master's CA", server, stored.reason());
    boolean keepable = stored.verdict() == StoredCredentials.Verdict.DUE;
    List<X509Certificate> chain;
    try {
      chain = request(stored.request(uuid, hosts),
          keepable ? Math.min(timeoutMs, RENEWAL_WAIT_MS) : timeoutMs, stop);
    } catch (NyalaException e) {
      if (keepable && e.code() == StatusCode.TIMED_OUT) {
        ServerCredentials own = stored.credentials();
        LOG.warn("{}: its certificate is due for renewal but no leader master issued one ({}); "
            + "presenting it until a later start renews it, valid until {}", server,
            e.detail(), own.expiresAt());
        return own;
      }
      throw e;
    }
    ServerCredentials issued = stored.replaceWith(files, chain, trustedCa, "the master's CA");
    LOG.info("{}: certificate issued by the master's CA, valid until {}", server,
        issued.expiresAt());
    return issued;
  }

  private void checkCanAsk() {
    if (keys == null) {
      throw NyalaException.invalidArgument("%s: getting a certificate from the master's CA needs "
          + "--encrypt_data_at_rest (the request proves membership with the cluster key); or "
          + "give --tls_cert_file and --tls_key_file", server);
    }
    if (masters.isEmpty()) {
      throw NyalaException.invalidArgument("%s: --trusted_ca_file without --tls_cert_file asks "
          + "the leader master's CA for a certificate, but there is no other master to ask "
          + "(--master_addresses)", server);
    }
  }

  /**
   * The chain (leaf first) the leader master's CA issues for {@code csr}, asking {@code masters}
   * in turn until one answers or {@code timeoutMs} passed. Unchecked: the caller checks that it
   * is from the trusted CA and for its key.
   *
   * @throws NyalaException the master's refusal (NOT_AUTHORIZED, INVALID_ARGUMENT,
   *     ILLEGAL_STATE), or TIMED_OUT naming the masters and the last answer
   */
  public List<X509Certificate> request(Csr csr, long timeoutMs, BooleanSupplier stop) {
    int version = keys.currentVersion();
    IssueCertificateRequestPB req = IssueCertificateRequestPB.newBuilder()
        .setCsrDer(ByteString.copyFrom(csr.toDer()))
        .setMembershipProof(ByteString.copyFrom(MembershipProof.of(keys, version, csr.toDer())))
        .setProofKeyVersion(version).build();
    try (Channels channels = new Channels().useTls(TlsContexts.forClient(trustedCa))) {
      return request(channels, req, timeoutMs, stop);
    }
  }

  /**
   * A new certificate for the stored key while the server runs (docs/architecture.md, "TLS and
   * the internal CA"): the same request as at start, sent once to each master in turn until one
   * issues (no waiting between rounds: the caller retries on its own schedule), checked against
   * the trusted CA, the key and the clock, and stored in place of the previous chain
   * (atomically) before it is returned. The stored key stays.
   *
   * @throws NyalaException naming the server: the master's refusal, TIMED_OUT with the last
   *     master's answer, INVALID_ARGUMENT for a chain that is not for the key or not from the
   *     trusted CA, CORRUPTION for one that is not valid now
   */
  public ServerCredentials renew(CredentialFiles files, String uuid, Collection<String> hosts,
      BooleanSupplier stop) {
    checkCanAsk();
    StoredCredentials stored = StoredCredentials.load(files, hosts, trustedCa, clock.instant());
    List<X509Certificate> chain = request(stored.request(uuid, hosts), 0, stop);
    X509Certificate leaf = chain.get(0);
    try {
      leaf.checkValidity(Date.from(clock.instant()));
    } catch (GeneralSecurityException e) {
      throw NyalaException.corruption("%s: the renewed certificate (serial %s) is not usable: "
          + "%s", server, leaf.getSerialNumber().toString(16), e.getMessage());
    }
    return stored.replaceWith(files, chain, trustedCa, "the master's CA");
  }

  private List<X509Certificate> request(Channels channels, IssueCertificateRequestPB req,
      long timeoutMs, BooleanSupplier stop) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    long backoff = 100;
    NyalaException last = NyalaException.unavailable("no --master_addresses");
    while (!stop.getAsBoolean()) {
      for (HostPort m : masters) {
        IssueCertificateResponsePB resp;
        try {
          resp = MasterServiceGrpc.newBlockingStub(channels.get(m))
              .withDeadlineAfter(RPC_DEADLINE_MS, TimeUnit.MILLISECONDS).issueCertificate(req);
        } catch (RuntimeException e) {
          last = NyalaException.unavailable("master %s: %s", m, e.getMessage());
          continue;
        }
        if (!NyalaException.isError(resp.getError())) {
          return chain(resp, m);
        }
        NyalaException e = NyalaException.fromPb(resp.getError());
        if (isRefusal(e.code())) {
          throw new NyalaException(e.code(), server + ": master " + m
              + " refused its certificate request: " + e.detail());
        }
        last = e;
      }
      if (System.nanoTime() - deadline >= 0) {
        break;
      }
      sleep(backoff);
      backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
    }
    throw NyalaException.timedOut("%s: no certificate from the master's CA %s (masters %s); "
        + "last answer: %s", server,
        timeoutMs > 0 ? "within " + timeoutMs + " ms" : "after asking each once", masters,
        last.getMessage());
  }

  /** Answers that asking again (or another master) will not change. */
  private static boolean isRefusal(StatusCode code) {
    return code == StatusCode.NOT_AUTHORIZED || code == StatusCode.INVALID_ARGUMENT
        || code == StatusCode.ILLEGAL_STATE;
  }

  private List<X509Certificate> chain(IssueCertificateResponsePB resp, HostPort from) {
    List<X509Certificate> out = new ArrayList<>();
    try {
      CertificateFactory f = CertificateFactory.getInstance("X.509");
      for (ByteString der : resp.getChainDerList()) {
        out.add((X509Certificate) f.generateCertificate(
            new ByteArrayInputStream(der.toByteArray())));
      }
    } catch (CertificateException | ClassCastException e) {
      throw NyalaException.corruption("%s: master %s answered a certificate that does not "
          + "parse: %s", server, from, e.getMessage());
    }
    if (out.isEmpty()) {
      throw NyalaException.corruption("%s: master %s answered no certificate", server,
          from);
    }
    return out;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.unavailable("interrupted while asking for a certificate");
    }
  }
}
