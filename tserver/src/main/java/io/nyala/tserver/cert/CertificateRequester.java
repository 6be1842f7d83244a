package io.nyala.tserver.cert;

import com.google.protobuf.ByteString;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.MembershipProof;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.ServerCredentials;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets a tablet server its certificate from the leader master's CA (docs/architecture.md, "TLS
 * and the internal CA"), before the server starts its listeners. A stored certificate is used
 * again while it is for the stored key, from the trusted CA, names the same addresses and does
 * not need renewal (two thirds of its validity); else the server sends a new request, {@code
 * CN=<uuid>} with one subjectAltName per host, with its membership proof, over TLS that trusts
 * the CA and presents nothing (the server has no certificate yet). Masters that do not lead, are
 * unreachable or have no CA yet are retried until the deadline; a refusal (no or a wrong proof, a
 * CA the cluster does not trust) ends the start at once with the master's reason.
 */
public final class CertificateRequester {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateRequester.class);
  private static final long RPC_DEADLINE_MS = 10_000;
  private static final long MAX_BACKOFF_MS = 2_000;

  private final String name;
  private final List<HostPort> masters;
  private final KeyProvider keys;
  private final X509Certificate trustedCa;
  private final Clock clock;

  /**
   * @param name the server, for messages
   * @param masters {@code --master_addresses}
   * @param keys the cluster key the membership proof is keyed from; null when the server does
   *     not encrypt at rest (it then cannot prove membership, and the start is refused)
   */
  public CertificateRequester(String name, List<HostPort> masters, KeyProvider keys,
      X509Certificate trustedCa) {
    this.name = name;
    this.masters = List.copyOf(masters);
    this.keys = keys;
    this.trustedCa = trustedCa;
    this.clock = Clock.systemUTC();
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
   * The server's credentials: the stored ones while still good, else newly issued and stored.
   *
   * @param env the server's door to its files; {@code walDir} holds them ({@link
   *     CredentialFiles})
   * @param anonymous the TLS of the first contact: trusts the CA, presents nothing
   * @param stop whether the server is closing (stops the retries)
   * @throws NyalaException naming the server: the master's refusal, or TIMED_OUT naming the
   *     masters and the last answer
   */
  public ServerCredentials obtain(Env env, Path walDir, String uuid, Collection<String> hosts,
      SslContext anonymous, long timeoutMs, BooleanSupplier stop) {
    CredentialFiles files = new CredentialFiles(env, walDir);
    if (keys == null) {
      throw NyalaException.invalidArgument("tablet server %s: getting a certificate from the "
          + "master's CA needs --encrypt_data_at_rest (the request proves membership with the "
          + "cluster key); or give --tls_cert_file and --tls_key_file", name);
    }
    if (masters.isEmpty()) {
      throw NyalaException.invalidArgument("tablet server %s: --trusted_ca_file without "
          + "--tls_cert_file asks the masters' CA for a certificate, but --master_addresses is "
          + "empty", name);
    }
    KeyPair key = files.loadOrCreateKey();
    List<X509Certificate> stored = files.loadChain();
    if (stored != null && stillGood(stored, key, hosts)) {
      LOG.info("{}: using its stored certificate from the master's CA, renewed after {}", name,
          new ServerCredentials(key.getPrivate(), stored).renewAt());
      return new ServerCredentials(key.getPrivate(), stored);
    }
    IssueCertificateRequestPB req = requestFor(key, uuid, hosts);
    List<X509Certificate> chain;
    try (Channels channels = new Channels().useTls(anonymous)) {
      chain = request(channels, req, timeoutMs, stop);
    }
    ServerCredentials issued = new ServerCredentials(key.getPrivate(), chain);
    files.storeChain(chain);
    LOG.info("{}: certificate issued by the master's CA, valid until {}", name,
        issued.expiresAt());
    return issued;
  }

  /**
   * A new certificate for the stored key while the server runs (docs/architecture.md, "TLS and
   * the internal CA"): the same request as at start, sent once to each master in turn until one
   * issues (no waiting between rounds: the caller retries on its own schedule), checked against
   * the trusted CA and the key, and stored in place of the previous chain (atomically) before it
   * is returned. The stored key stays.
   *
   * @throws NyalaException naming the server: the master's refusal, UNAVAILABLE or TIMED_OUT
   *     with the last master's answer, CORRUPTION for a chain that is not for the key or not
   *     from the trusted CA
   */
  public ServerCredentials renew(Env env, Path walDir, String uuid, Collection<String> hosts,
      SslContext anonymous, BooleanSupplier stop) {
    if (keys == null) {
      throw NyalaException.illegalState("tablet server %s: cannot renew its certificate without "
          + "the cluster key (--encrypt_data_at_rest)", name);
    }
    CredentialFiles files = new CredentialFiles(env, walDir);
    KeyPair key = files.loadOrCreateKey();
    List<X509Certificate> chain;
    try (Channels channels = new Channels().useTls(anonymous)) {
      chain = request(channels, requestFor(key, uuid, hosts), 0, stop);
    }
    X509Certificate leaf = chain.get(0);
    try {
      leaf.verify(trustedCa.getPublicKey());
      leaf.checkValidity(Date.from(clock.instant()));
    } catch (GeneralSecurityException e) {
      throw NyalaException.corruption("tablet server %s: the renewed certificate (serial %s) is "
          + "not usable: %s", name, leaf.getSerialNumber().toString(16), e.getMessage());
    }
    ServerCredentials renewed = new ServerCredentials(key.getPrivate(), chain);
    files.storeChain(chain);
    return renewed;
  }

  private IssueCertificateRequestPB requestFor(KeyPair key, String uuid,
      Collection<String> hosts) {
    Csr csr = Csr.create(key, uuid, List.copyOf(hosts));
    int version = keys.currentVersion();
    return IssueCertificateRequestPB.newBuilder()
        .setCsrDer(ByteString.copyFrom(csr.toDer()))
        .setMembershipProof(ByteString.copyFrom(MembershipProof.of(keys, version, csr.toDer())))
        .setProofKeyVersion(version).build();
  }

  /** Whether a stored chain can be presented again without asking the master. */
  private boolean stillGood(List<X509Certificate> chain, KeyPair key,
      Collection<String> hosts) {
    X509Certificate leaf = chain.get(0);
    try {
      leaf.verify(trustedCa.getPublicKey());
      leaf.checkValidity();
    } catch (GeneralSecurityException e) {
      LOG.info("{}: its stored certificate is not usable ({}); asking for a new one", name,
          e.getMessage());
      return false;
    }
    if (!leaf.getPublicKey().equals(key.getPublic())) {
      return false;
    }
    if (new ServerCredentials(key.getPrivate(), chain).needsRenewal(clock.instant())) {
      LOG.info("{}: its certificate is due for renewal; asking the master's CA", name);
      return false;
    }
    return names(leaf).equals(new HashSet<>(hosts));
  }

  private static Set<String> names(X509Certificate leaf) {
    Set<String> out = new HashSet<>();
    try {
      if (leaf.getSubjectAlternativeNames() != null) {
        leaf.getSubjectAlternativeNames().forEach(n -> out.add(String.valueOf(n.get(1))));
      }
    } catch (CertificateException e) {
      return Set.of();
    }
    return out;
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
          throw new NyalaException(e.code(), "tablet server " + name + ": master " + m
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
    throw NyalaException.timedOut("tablet server %s: no certificate from the master's CA %s "
        + "(masters %s); last answer: %s", name,
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
      throw NyalaException.corruption("tablet server %s: master %s answered a certificate that "
          + "does not parse: %s", name, from, e.getMessage());
    }
    if (out.isEmpty()) {
      throw NyalaException.corruption("tablet server %s: master %s answered no certificate",
          name, from);
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
