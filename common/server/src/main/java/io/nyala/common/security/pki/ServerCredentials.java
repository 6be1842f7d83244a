package io.nyala.common.security.pki;

import io.nyala.common.NyalaException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What a server proves its identity with: its private key and its certificate chain, the leaf
 * (issued for that key) first and the CA that issued it last. A server renews once two thirds
 * of the leaf's validity have passed, which leaves a third of it to reach a master. Immutable;
 * {@link #toString} names the certificate, never the key.
 */
public final class ServerCredentials {
  private final PrivateKey key;
  private final List<X509Certificate> chain;

  /**
   * Credentials of {@code key} and {@code chain} (leaf first, CA last; a self-signed leaf alone
   * is a chain of one). Refuses an empty chain and a key that is not the leaf's.
   */
  public ServerCredentials(PrivateKey key, List<X509Certificate> chain) {
    if (chain == null || chain.isEmpty()) {
      throw NyalaException.invalidArgument("server credentials need a certificate chain, got "
          + "none");
    }
    X509Certificate leaf = chain.get(0);
    if (key == null || !EcKeys.matches(key, leaf.getPublicKey())) {
      throw NyalaException.invalidArgument("the private key does not belong to certificate "
          + "'%s'", leaf.getSubjectX500Principal().getName());
    }
    this.key = key;
    this.chain = List.copyOf(chain);
  }

  public PrivateKey privateKey() {
    return key;
  }

  /** Leaf first, CA last. */
  public List<X509Certificate> chain() {
    return chain;
  }

  /** The server's own certificate. */
  public X509Certificate leaf() {
    return chain.get(0);
  }

  /** The leaf's notAfter: after it no peer accepts these credentials. */
  public Instant expiresAt() {
    return leaf().getNotAfter().toInstant();
  }

  /** Whether at {@code now} two thirds or more of the leaf's validity have passed. */
  public boolean needsRenewal(Instant now) {
    return !now.isBefore(renewAt());
  }

  /** The instant two thirds of the leaf's validity have passed. */
  public Instant renewAt() {
    Instant from = leaf().getNotBefore().toInstant();
    Duration validity = Duration.between(from, expiresAt());
    return from.plus(validity.multipliedBy(2).dividedBy(3));
  }

  @Override
  public String toString() {
    return "ServerCredentials[" + leaf().getSubjectX500Principal().getName() + ", until "
        + expiresAt() + ", chain of " + chain.size() + "]";
  }
}
