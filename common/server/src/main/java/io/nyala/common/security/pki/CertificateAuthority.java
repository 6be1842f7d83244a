package io.nyala.common.security.pki;

import io.nyala.common.NyalaException;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;

/**
 * The cluster's internal CA (docs/architecture.md, "TLS and the internal CA (library)"): an EC
 * key and a self-signed CA certificate, created once by the leader master or restored from
 * what it stored, that issues each server a certificate for the key of its {@link Csr}. Issued
 * certificates name the server ({@code CN=<uuid>}) and the addresses it asked for, serve both
 * ends of a TLS connection (serverAuth and clientAuth), carry a random 128-bit serial and never
 * outlive the CA. Thread-safe: it holds only immutable values.
 */
public final class CertificateAuthority {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final PrivateKey key;
  private final X509Certificate certificate;
  private final Clock clock;

  private CertificateAuthority(PrivateKey key, X509Certificate certificate, Clock clock) {
    this.key = key;
    this.certificate = certificate;
    this.clock = clock;
  }

  /**
   * A new CA of cluster {@code clusterId}, named {@code CN=Nyala cluster CA <clusterId>}, valid
   * from now for {@code validity}.
   */
  public static CertificateAuthority create(String clusterId, Duration validity, Clock clock) {
    if (clusterId == null || clusterId.isBlank()) {
      throw NyalaException.invalidArgument("cluster id of a CA is empty");
    }
    requirePositive(validity, "CA validity");
    KeyPair keys = EcKeys.generate();
    X500Name name = new X500NameBuilder(BCStyle.INSTANCE)
        .addRDN(BCStyle.CN, "Nyala cluster CA " + clusterId.strip()).build();
    Instant from = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(),
          Date.from(from), Date.from(from.plus(validity)), name, keys.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
          .addExtension(Extension.subjectKeyIdentifier, false,
              ext.createSubjectKeyIdentifier(keys.getPublic()));
      X509Certificate cert = sign(b, keys.getPrivate());
      return new CertificateAuthority(keys.getPrivate(), cert, clock);
    } catch (CertIOException | NoSuchAlgorithmException e) {
      throw NyalaException.invalidArgument("cannot build the CA certificate of cluster %s: %s",
          clusterId, e.getMessage());
    }
  }

  /**
   * The CA that {@code key} and {@code certificate} (as {@link #privateKey} and
   * {@link #certificate} gave them) make up, refusing a certificate that is not a CA's or a key
   * that is not its certificate's.
   */
  public static CertificateAuthority restore(PrivateKey key, X509Certificate certificate,
      Clock clock) {
    String name = certificate.getSubjectX500Principal().getName();
    if (certificate.getBasicConstraints() < 0) {
      throw NyalaException.invalidArgument("certificate '%s' is not a CA certificate "
          + "(basicConstraints CA=false)", name);
    }
    if (!EcKeys.matches(key, certificate.getPublicKey())) {
      throw NyalaException.invalidArgument("the private key does not belong to CA certificate "
          + "'%s'", name);
    }
    return new CertificateAuthority(key, certificate, clock);
  }

  /** The CA's certificate: what every server and client trusts. */
  public X509Certificate certificate() {
    return certificate;
  }

  /** The CA's private key, for its owner to store sealed; never log it. */
  public PrivateKey privateKey() {
    return key;
  }

  /**
   * A certificate for the key and names of {@code csr}, valid from now for {@code validity} or
   * until the CA expires, whichever comes first. Refuses a request whose signature does not
   * verify with its own public key, whose subject is empty, or that arrives after the CA has
   * expired.
   */
  public X509Certificate issue(Csr csr, Duration validity) {
    requirePositive(validity, "certificate validity");
    String subject = csr.subject();
    if (subject.isEmpty()) {
      throw NyalaException.invalidArgument("CSR has an empty subject; expected CN=<server uuid>");
    }
    csr.publicKey(); // refuses a key that is not EC, by name, before the signature check
    if (!csr.signatureValid()) {
      throw NyalaException.invalidArgument("CSR of '%s': its signature does not verify with "
          + "its public key", subject);
    }
    Instant from = clock.instant().truncatedTo(ChronoUnit.SECONDS);
    Instant caEnd = certificate.getNotAfter().toInstant();
    if (!from.isBefore(caEnd)) {
      throw NyalaException.illegalState("CA '%s' expired at %s; cannot issue to '%s'",
          certificate.getSubjectX500Principal().getName(), caEnd, subject);
    }
    Instant to = from.plus(validity).isAfter(caEnd) ? caEnd : from.plus(validity);
    return sign(leaf(csr, from, to), key);
  }

  private X509v3CertificateBuilder leaf(Csr csr, Instant from, Instant to) {
    PublicKey requester = csr.publicKey();
    GeneralNames names = csr.subjectAltNames();
    try {
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(certificate, serial(),
          Date.from(from), Date.from(to), csr.request().getSubject(), requester)
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
          .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
          .addExtension(Extension.subjectKeyIdentifier, false,
              ext.createSubjectKeyIdentifier(requester))
          .addExtension(Extension.authorityKeyIdentifier, false,
              ext.createAuthorityKeyIdentifier(certificate));
      if (names.getNames().length > 0) {
        b.addExtension(Extension.subjectAlternativeName, false, names);
      }
      return b;
    } catch (CertIOException | NoSuchAlgorithmException | CertificateException e) {
      throw NyalaException.invalidArgument("CSR of '%s': cannot build its certificate: %s",
          csr.subject(), e.getMessage());
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key) {
    try {
      return new JcaX509CertificateConverter().getCertificate(b.build(EcKeys.signer(key)));
    } catch (CertificateException e) {
      throw NyalaException.invalidArgument("cannot sign certificate: %s", e.getMessage());
    }
  }

  /** A positive random 128-bit serial number (RFC 5280 allows up to 20 octets). */
  private static BigInteger serial() {
    byte[] b = new byte[16];
    RANDOM.nextBytes(b);
    return new BigInteger(1, b);
  }

  private static void requirePositive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero() || d.toSeconds() == 0) {
      throw NyalaException.invalidArgument("%s must be at least one second, got %s", what, d);
    }
  }

  @Override
  public String toString() {
    return "CertificateAuthority[" + certificate.getSubjectX500Principal().getName()
        + ", until " + certificate.getNotAfter().toInstant() + "]";
  }
}
