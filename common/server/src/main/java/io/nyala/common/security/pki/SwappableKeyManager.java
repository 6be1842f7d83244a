package io.nyala.common.security.pki;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The key manager of a server whose certificate changes while it runs (docs/architecture.md,
 * "TLS and the internal CA"): every TLS handshake of its contexts (Nyala's gRPC server and
 * channels, Ratis' server and clients, HTTPS) asks it for the key and chain to present, and it
 * answers with the credentials last {@link #swap swapped} in. A connection keeps what it
 * presented at its handshake; connections made after a swap present the new credentials.
 *
 * <p>Each credentials get their own alias, {@code nyala-<generation>}: TLS stacks choose an alias
 * and then ask for its chain and its key in separate calls, so a handshake that chose its alias
 * just before a swap must still get a chain and a key that belong together. The previous
 * generation is kept for such a handshake. Per-generation aliases also keep a stack that caches
 * key material by alias from presenting stale material.
 *
 * <p>Thread-safe: one swap at a time (synchronized), handshakes on any thread read the two
 * volatile fields without locking.
 */
public final class SwappableKeyManager extends X509ExtendedKeyManager {
  private static final String ALIAS_PREFIX = "nyala-";

  /**
   * One swapped-in credentials and the alias handshakes name them by. The chain array is made
   * once: Netty's OpenSSL provider keeps the native copy of the key material while the key and
   * certificates it gets are the same instances, and makes a new one when they change.
   */
  private record Generation(long number, String alias, ServerCredentials credentials,
      X509Certificate[] chain) {
    static Generation of(long number, ServerCredentials credentials) {
      return new Generation(number, ALIAS_PREFIX + number, credentials,
          credentials.chain().toArray(new X509Certificate[0]));
    }
  }

  /** What new handshakes present. Written under {@code this}, after {@link #previous}. */
  private volatile Generation current;
  /** The generation before {@link #current}, for handshakes that chose it before a swap. */
  private volatile Generation previous;
  /** Run after each swap: the contexts built on this key manager forget their TLS sessions. */
  private final List<Runnable> swapListeners = new CopyOnWriteArrayList<>();

  /** A key manager presenting {@code initial} until the first swap. */
  public SwappableKeyManager(ServerCredentials initial) {
    if (initial == null) {
      throw new IllegalArgumentException("initial credentials are null");
    }
    this.current = Generation.of(1, initial);
  }

  /** The credentials new handshakes present. */
  public ServerCredentials current() {
    return current.credentials();
  }

  /** How many times credentials were swapped in since this key manager was made. */
  public long swaps() {
    return current.number() - 1;
  }

  /**
   * Presents {@code next} in every handshake from now on; connections already made keep theirs.
   * The caller has checked that the CA the peers trust issued it.
   */
  public synchronized void swap(ServerCredentials next) {
    if (next == null) {
      throw new IllegalArgumentException("credentials to swap in are null");
    }
    Generation now = current;
    previous = now;
    current = Generation.of(now.number() + 1, next);
    swapListeners.forEach(Runnable::run);
  }

  /**
   * Runs {@code listener} after every swap. {@link TlsContexts} makes each context it builds on
   * this key manager forget its TLS sessions then: a resumed session does not present a
   * certificate, so without that a reconnection could go on with the old one.
   */
  void onSwap(Runnable listener) {
    swapListeners.add(listener);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return aliasFor(keyType);
  }

  @Override
  public String chooseClientAlias(String[] keyTypes, Principal[] issuers, Socket socket) {
    return aliasFor(keyTypes);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyTypes, Principal[] issuers,
      SSLEngine engine) {
    return aliasFor(keyTypes);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    String alias = aliasFor(keyType);
    return alias == null ? null : new String[] {alias};
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return getServerAliases(keyType, issuers);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    Generation g = generationOf(alias);
    return g == null ? null : g.chain();
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    Generation g = generationOf(alias);
    return g == null ? null : g.credentials().privateKey();
  }

  private Generation generationOf(String alias) {
    Generation g = current;
    if (g.alias().equals(alias)) {
      return g;
    }
    Generation p = previous;
    return p != null && p.alias().equals(alias) ? p : null;
  }

  /**
   * The current alias if its key is of {@code keyType}: the key's algorithm ({@code EC}), or
   * that algorithm with the CA's signature algorithm ({@code EC_EC}, {@code EC_RSA}) as JSSE and
   * Netty's OpenSSL name them; any type when none is given.
   */
  private String aliasFor(String keyType) {
    Generation g = current;
    return matches(keyType, g.credentials().privateKey().getAlgorithm()) ? g.alias() : null;
  }

  private String aliasFor(String[] keyTypes) {
    if (keyTypes == null || keyTypes.length == 0) {
      return current.alias();
    }
    for (String t : keyTypes) {
      String alias = aliasFor(t);
      if (alias != null) {
        return alias;
      }
    }
    return null;
  }

  private static boolean matches(String keyType, String algorithm) {
    return keyType == null || keyType.equals(algorithm) || keyType.startsWith(algorithm + "_");
  }

  @Override
  public String toString() {
    return "SwappableKeyManager[" + current() + ", generation " + current.number() + "]";
  }
}
