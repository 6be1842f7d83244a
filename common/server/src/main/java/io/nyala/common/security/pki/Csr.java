package io.nyala.common.security.pki;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.bouncycastle.util.IPAddress;

/**
 * A server's PKCS#10 certificate request: subject {@code CN=<server uuid>}, signed with the
 * server's own key, asking for a subjectAltName per address it is reached at (an IP literal
 * becomes an iPAddress name, anything else a dNSName). It travels as DER (in a registration RPC)
 * or PEM (in files); decoding checks the structure only, {@link CertificateAuthority#issue}
 * checks the signature.
 */
public final class Csr {
  private static final String LABEL = "[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?";
  private static final Pattern DNS_NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
  private final PKCS10CertificationRequest request;

  private Csr(PKCS10CertificationRequest request) {
    this.request = request;
  }

  /**
   * The request of server {@code serverUuid} reached at {@code hosts} (host names and IP
   * literals), signed with {@code keys}.
   */
  public static Csr create(KeyPair keys, String serverUuid, List<String> hosts) {
    if (serverUuid == null || serverUuid.isBlank()) {
      throw NyalaException.invalidArgument("server uuid of a CSR is empty");
    }
    Extensions ext;
    try {
      ext = new Extensions(new Extension(Extension.subjectAlternativeName, false,
          subjectAltNames(hosts).getEncoded()));
    } catch (IOException e) {
      throw NyalaException.invalidArgument("cannot encode the names %s of server %s: %s", hosts,
          serverUuid, e.getMessage());
    }
    X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, serverUuid)
        .build();
    PKCS10CertificationRequest req = new JcaPKCS10CertificationRequestBuilder(subject,
        keys.getPublic())
        .addAttribute(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest, ext)
        .build(EcKeys.signer(keys.getPrivate()));
    return new Csr(req);
  }

  /** The request encoded by {@code der}; errors name {@code source} (who sent it, or a file). */
  public static Csr fromDer(byte[] der, String source) {
    try {
      return new Csr(new PKCS10CertificationRequest(der));
    } catch (IOException | RuntimeException e) {
      throw NyalaException.invalidArgument("%s: not a PKCS#10 certificate request: %s", source,
          e.getMessage());
    }
  }

  /** The request in PEM; errors name {@code source}. */
  public static Csr fromPem(String pem, String source) {
    return Pem.readCsr(pem, source);
  }

  public byte[] toDer() {
    try {
      return request.getEncoded();
    } catch (IOException e) {
      throw NyalaException.invalidArgument("cannot encode CSR of '%s': %s", subject(),
          e.getMessage());
    }
  }

  public String toPem() {
    return Pem.encode(this);
  }

  /** The subject as an RFC 4514 string, e.g. {@code CN=3f2e...}; empty if the request has none. */
  public String subject() {
    return request.getSubject().toString();
  }

  /** The subjectAltNames asked for, as BC general names (empty if none). */
  GeneralNames subjectAltNames() {
    Extensions ext = request.getRequestedExtensions();
    GeneralNames names = ext == null ? null : GeneralNames.fromExtensions(ext,
        Extension.subjectAlternativeName);
    return names == null ? new GeneralNames(new GeneralName[0]) : names;
  }

  PKCS10CertificationRequest request() {
    return request;
  }

  /** The requester's public key (EC only); errors name the subject. */
  public PublicKey publicKey() {
    try {
      byte[] spki = request.getSubjectPublicKeyInfo().getEncoded();
      return KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(spki));
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      throw NyalaException.invalidArgument("CSR of '%s': not an EC public key: %s", subject(),
          e.getMessage());
    }
  }

  /** Whether the request is signed by the private half of its own public key. */
  public boolean signatureValid() {
    try {
      return request.isSignatureValid(
          new JcaContentVerifierProviderBuilder().build(publicKey()));
    } catch (OperatorCreationException | PKCSException | RuntimeException e) {
      return false;
    }
  }

  private static GeneralNames subjectAltNames(List<String> hosts) {
    List<GeneralName> names = new ArrayList<>();
    for (String h : hosts) {
      if (h == null || h.isBlank()) {
        throw NyalaException.invalidArgument("empty host name among %s", hosts);
      }
      String host = h.strip();
      String literal = host.startsWith("[") && host.endsWith("]")
          ? host.substring(1, host.length() - 1) : host;
      if (IPAddress.isValid(literal)) {
        names.add(new GeneralName(GeneralName.iPAddress, literal));
      } else if (DNS_NAME.matcher(host).matches()) {
        names.add(new GeneralName(GeneralName.dNSName, host));
      } else {
        throw NyalaException.invalidArgument(
            "host '%s' is neither an IP address nor a DNS name", host);
      }
    }
    return new GeneralNames(names.toArray(new GeneralName[0]));
  }

  @Override
  public String toString() {
    return "Csr[" + subject() + "]";
  }
}
