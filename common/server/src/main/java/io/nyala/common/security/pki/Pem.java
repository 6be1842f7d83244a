package io.nyala.common.security.pki;

import io.nyala.common.NyalaException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * PEM text (RFC 7468) of certificates, PKCS#8 private keys and PKCS#10 requests, the form the
 * files of a server and the operator's {@code --trusted_ca_file} hold. Reading names its
 * {@code source} (a file name, or what sent the text) in every error, and refuses a block that is
 * truncated, not base64, of another type or not decodable. Files themselves are the caller's.
 */
public final class Pem {
  static final String CERTIFICATE = "CERTIFICATE";
  static final String PRIVATE_KEY = "PRIVATE KEY";
  static final String CSR = "CERTIFICATE REQUEST";

  private Pem() {}

  /** The PEM text of {@code certs}, one block each, in order. */
  public static String encode(List<X509Certificate> certs) {
    StringBuilder sb = new StringBuilder();
    for (X509Certificate c : certs) {
      try {
        sb.append(block(CERTIFICATE, c.getEncoded()));
      } catch (CertificateException e) {
        throw NyalaException.invalidArgument("cannot encode certificate '%s': %s",
            c.getSubjectX500Principal(), e.getMessage());
      }
    }
    return sb.toString();
  }

  /** The PEM text of {@code cert}. */
  public static String encode(X509Certificate cert) {
    return encode(List.of(cert));
  }

  /** The PKCS#8 PEM text of {@code key}, unencrypted: whoever stores it must protect it. */
  public static String encode(PrivateKey key) {
    return block(PRIVATE_KEY, key.getEncoded());
  }

  /** The PEM text of {@code csr}. */
  public static String encode(Csr csr) {
    return block(CSR, csr.toDer());
  }

  /** Every certificate of {@code pem}, in order; at least one. */
  public static List<X509Certificate> readCertificates(String pem, String source) {
    List<byte[]> ders = PemBlocks.parse(pem, CERTIFICATE, source);
    List<X509Certificate> out = new ArrayList<>();
    for (int i = 0; i < ders.size(); i++) {
      out.add(certificate(ders.get(i), source + ", certificate " + (i + 1)));
    }
    return List.copyOf(out);
  }

  /** The one certificate of {@code pem}. */
  public static X509Certificate readCertificate(String pem, String source) {
    return only(readCertificates(pem, source), CERTIFICATE, source);
  }

  /** The one PKCS#8 private key of {@code pem}. */
  public static PrivateKey readPrivateKey(String pem, String source) {
    byte[] der = only(PemBlocks.parse(pem, PRIVATE_KEY, source), PRIVATE_KEY, source);
    try {
      return new JcaPEMKeyConverter().getPrivateKey(PrivateKeyInfo.getInstance(der));
    } catch (RuntimeException | IOException e) {
      throw NyalaException.invalidArgument("%s: not a PKCS#8 private key: %s", source,
          e.getMessage());
    }
  }

  /** The one certificate request of {@code pem}. */
  public static Csr readCsr(String pem, String source) {
    return Csr.fromDer(only(PemBlocks.parse(pem, CSR, source), CSR, source), source);
  }

  /** The certificate encoded by {@code der}; errors name {@code source}. */
  static X509Certificate certificate(byte[] der, String source) {
    try {
      CertificateFactory f = CertificateFactory.getInstance("X.509");
      return (X509Certificate) f.generateCertificate(new ByteArrayInputStream(der));
    } catch (GeneralSecurityException | RuntimeException e) {
      throw NyalaException.invalidArgument("%s: not an X.509 certificate: %s", source,
          e.getMessage());
    }
  }

  private static <T> T only(List<T> items, String type, String source) {
    if (items.size() != 1) {
      throw NyalaException.invalidArgument("%s: expected one %s block, found %d", source, type,
          items.size());
    }
    return items.get(0);
  }

  private static String block(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}
