package io.nyala.common.security.cert;

import io.nyala.common.NyalaException;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.ServerCredentials;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a server found in its {@link CredentialFiles} at start, and what that is good for
 * (docs/architecture.md, "TLS and the internal CA"): its key (made there once) and the chain it
 * stored, judged against the CA it trusts, the hosts it is reached at and the time. Both ways of
 * getting a certificate, a request to the leader master ({@link CertificateRequester}) and a
 * master's own CA key, go through it, so they reuse and renew alike.
 *
 * @param key the server's key pair, stored
 * @param chain the stored chain (leaf first), or null when none is stored
 * @param verdict what the stored chain is good for
 * @param reason why it is not {@link Verdict#GOOD}, for the log; empty when it is
 */
public record StoredCredentials(KeyPair key, List<X509Certificate> chain, Verdict verdict,
    String reason) {

  /** What a stored chain is good for. */
  public enum Verdict {
    /** Present it again: from the trusted CA, for the key, the same hosts, not due. */
    GOOD,
    /**
     * Still valid but two thirds of its validity have passed: renew it, and keep presenting it
     * if no new one can be had now (it works until its end).
     */
    DUE,
    /** None stored, or not usable (expired, another CA, another key, other hosts): replace. */
    UNUSABLE
  }

  /**
   * The key in {@code files} (made and stored now if there is none) and the stored chain, judged
   * at {@code now} for a server reached at {@code hosts} that trusts {@code trustedCa}.
   */
  public static StoredCredentials load(CredentialFiles files, Collection<String> hosts,
      X509Certificate trustedCa, Instant now) {
    KeyPair key = files.loadOrCreateKey();
    List<X509Certificate> chain = files.loadChain();
    if (chain == null || chain.isEmpty()) {
      return new StoredCredentials(key, null, Verdict.UNUSABLE, "no certificate stored");
    }
    X509Certificate leaf = chain.get(0);
    try {
      leaf.verify(trustedCa.getPublicKey());
      leaf.checkValidity(Date.from(now));
    } catch (GeneralSecurityException e) {
      return new StoredCredentials(key, chain, Verdict.UNUSABLE, "the stored certificate is not "
          + "usable: " + e.getMessage());
    }
    if (!leaf.getPublicKey().equals(key.getPublic())) {
      return new StoredCredentials(key, chain, Verdict.UNUSABLE, "the stored certificate is for "
          + "another key than " + files.keyFile());
    }
    Set<String> named = names(leaf);
    if (!named.equals(new HashSet<>(hosts))) {
      return new StoredCredentials(key, chain, Verdict.UNUSABLE, "the stored certificate names "
          + named + ", this server is reached at " + hosts);
    }
    ServerCredentials stored = new ServerCredentials(key.getPrivate(), chain);
    if (stored.needsRenewal(now)) {
      return new StoredCredentials(key, chain, Verdict.DUE, "the stored certificate was due for "
          + "renewal at " + stored.renewAt() + " (valid until " + stored.expiresAt() + ")");
    }
    return new StoredCredentials(key, chain, Verdict.GOOD, "");
  }

  /** The stored key and chain as credentials; only when a chain is stored. */
  public ServerCredentials credentials() {
    if (chain == null) {
      throw NyalaException.illegalState("no certificate stored");
    }
    return new ServerCredentials(key.getPrivate(), chain);
  }

  /** A request for a new certificate of the stored key: {@code CN=<uuid>}, one name a host. */
  public Csr request(String uuid, Collection<String> hosts) {
    return Csr.create(key, uuid, List.copyOf(hosts));
  }

  /**
   * Stores {@code issued} (leaf first) in place of the stored chain, once it is checked: from
   * {@code trustedCa} and for the stored key.
   *
   * @param from who issued it, for messages
   * @throws NyalaException INVALID_ARGUMENT naming {@code from} when the chain is not for the key
   *     or not from the trusted CA; nothing is stored then
   */
  public ServerCredentials replaceWith(CredentialFiles files, List<X509Certificate> issued,
      X509Certificate trustedCa, String from) {
    ServerCredentials fresh;
    try {
      fresh = new ServerCredentials(key.getPrivate(), issued);
      fresh.leaf().verify(trustedCa.getPublicKey());
    } catch (GeneralSecurityException | NyalaException e) {
      throw NyalaException.invalidArgument("the certificate from %s is not one of the CA of "
          + "--trusted_ca_file ('%s') for key %s: %s", from,
          trustedCa.getSubjectX500Principal().getName(), files.keyFile(), e.getMessage());
    }
    files.storeChain(issued);
    return fresh;
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
}
