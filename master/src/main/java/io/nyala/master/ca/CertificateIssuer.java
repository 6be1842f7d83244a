package io.nyala.master.ca;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.IssueCertificateRequestPB;
import io.nyala.common.proto.master.IssueCertificateResponsePB;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.MembershipProof;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers IssueCertificate on the leader master (docs/architecture.md, "TLS and the internal
 * CA"). The RPC is open to callers without a certificate, so the request must prove membership
 * ({@link MembershipProof}: an HMAC of the request keyed from the cluster key); a request
 * without it, or with a wrong one, is refused NOT_AUTHORIZED naming the server and the reason.
 * The subject must be a server uuid (the name callers are checked against). The master also
 * refuses to issue from a CA other than the one its servers trust ({@code --trusted_ca_file}):
 * such a certificate would be refused by every peer.
 *
 * <p>Thread-safe: holds only immutable values; the CA supplier is the catalog's.
 */
public final class CertificateIssuer {
  private static final Logger LOG = LoggerFactory.getLogger(CertificateIssuer.class);
  /** The subject of a server's request: CN=<its uuid>, 32 lowercase hex digits (RaftIds). */
  private static final Pattern SUBJECT = Pattern.compile("CN=([0-9a-f]{32})");

  private final Supplier<CertificateAuthority> ca;
  /** Null when the cluster does not encrypt at rest: then no request can prove membership. */
  private final KeyProvider keys;
  /** The CA this master's servers trust, or null (plaintext). */
  private final X509Certificate trustedCa;
  private final Duration validity;
  private final MetricRegistry.Counter issued;
  private final MetricRegistry.Counter refused;

  /**
   * @param ca the catalog's CA (throws SERVICE_UNAVAILABLE while there is none)
   * @param keys the cluster key the proofs are keyed from; null without encryption at rest
   * @param trustedCa {@code --trusted_ca_file}'s certificate, or null
   * @param validity of each certificate issued ({@code --server_certificate_validity_s})
   */
  public CertificateIssuer(Supplier<CertificateAuthority> ca, KeyProvider keys,
      X509Certificate trustedCa, Duration validity, MetricRegistry metrics) {
    this.ca = ca;
    this.keys = keys;
    this.trustedCa = trustedCa;
    this.validity = validity;
    this.issued = metrics.counter("certificates_issued_total",
        "Server certificates this master's CA issued");
    this.refused = metrics.counter("certificate_requests_refused_total",
        "Certificate requests refused (no or a wrong membership proof, a bad request)");
  }

  /**
   * The chain (leaf, CA) for the request; the caller has checked that this master leads.
   *
   * @param from the caller, for messages
   * @throws NyalaException NOT_AUTHORIZED without a valid membership proof, INVALID_ARGUMENT for
   *     a malformed request, ILLEGAL_STATE when the catalog's CA is not the trusted one
   */
  public IssueCertificateResponsePB issue(IssueCertificateRequestPB req, String from) {
    try {
      return doIssue(req, from);
    } catch (NyalaException e) {
      refused.inc();
      // A caller could flood the log: refusals are for the caller, and counted.
      LOG.debug("IssueCertificate from {} refused: {}", from, e.getMessage());
      throw e;
    }
  }

  private IssueCertificateResponsePB doIssue(IssueCertificateRequestPB req, String from) {
    byte[] der = req.getCsrDer().toByteArray();
    Csr csr = Csr.fromDer(der, "IssueCertificate from " + from);
    Matcher m = SUBJECT.matcher(csr.subject());
    String subject = m.matches() ? m.group(1) : csr.subject();
    String who = "certificate request of server '" + subject + "' from " + from;
    if (!m.matches()) {
      throw NyalaException.invalidArgument("%s refused: the subject must be CN=<server uuid> "
          + "(32 hex digits)", who);
    }
    checkProof(req, der, who);
    CertificateAuthority authority = ca.get();
    if (trustedCa != null && !trustedCa.equals(authority.certificate())) {
      throw NyalaException.illegalState("%s refused: the catalog's CA '%s' is not the CA this "
          + "cluster's servers trust ('%s', --trusted_ca_file): start the masters with "
          + "--tls_ca_key_file (that CA's key) to import it", who,
          authority.certificate().getSubjectX500Principal().getName(),
          trustedCa.getSubjectX500Principal().getName());
    }
    X509Certificate leaf = authority.issue(csr, validity);
    issued.inc();
    LOG.info("issued a certificate to server {} ({}), valid until {}", subject, from,
        leaf.getNotAfter().toInstant());
    return IssueCertificateResponsePB.newBuilder().addChainDer(der(leaf))
        .addChainDer(der(authority.certificate())).build();
  }

  private void checkProof(IssueCertificateRequestPB req, byte[] der, String who) {
    if (keys == null) {
      throw new NyalaException(StatusCode.NOT_AUTHORIZED, who + " refused: this master has no "
          + "cluster key (--encrypt_data_at_rest) to check its proof of membership with");
    }
    if (req.getMembershipProof().isEmpty()) {
      throw NyalaException.notAuthorized("%s refused: no proof of cluster membership (an HMAC "
          + "of the request keyed by the cluster key)", who);
    }
    boolean ok;
    try {
      ok = MembershipProof.verify(keys, req.getProofKeyVersion(), der,
          req.getMembershipProof().toByteArray());
    } catch (NyalaException e) {
      throw NyalaException.notAuthorized("%s refused: its proof of membership is keyed by "
          + "cluster key version %d, which this master cannot use: %s", who,
          req.getProofKeyVersion(), e.detail());
    }
    if (!ok) {
      throw NyalaException.notAuthorized("%s refused: its proof of membership does not verify "
          + "(not made with this cluster's key, version %d)", who, req.getProofKeyVersion());
    }
  }

  private static ByteString der(X509Certificate c) {
    try {
      return ByteString.copyFrom(c.getEncoded());
    } catch (CertificateEncodingException e) {
      throw new IllegalStateException("a certificate just issued does not encode", e);
    }
  }
}
