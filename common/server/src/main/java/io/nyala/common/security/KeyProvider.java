package io.nyala.common.security;

import java.util.List;

/**
 * Source of the cluster key: the seam a real KMS (Vault, a cloud KMS, an HSM) implements. Servers
 * never store the cluster key; they store their own server key wrapped by it, and ask the
 * provider to unwrap it once at start. A KMS implementation may never expose the cluster key
 * itself and do {@link #wrapServerKey}/{@link #unwrapServerKey} remotely; then
 * {@link #clusterKey} throws NOT_SUPPORTED.
 */
public interface KeyProvider {
  /**
   * The version new wraps use; versions let a cluster rotate its key while old wraps still open.
   */
  int currentVersion();

  /** The cluster key of {@code version}; NOT_FOUND if the provider has no such version. */
  KeyMaterial clusterKey(int version);

  /** The versions this provider holds, oldest first; the last is {@link #currentVersion}. */
  List<Integer> versions();

  /**
   * Reads again which versions exist (after a rotation added one or retired old ones:
   * docs/encryption.md, "Rotating the cluster key"); a KMS implementation refreshes its list
   * of key versions. Wraps made afterwards use the new {@link #currentVersion}.
   */
  void reload();

  /**
   * Wraps a server (or tablet, or catalog) key under the current cluster key; the result
   * records that version, and {@link #unwrapServerKey} uses the version it records.
   */
  WrappedKey wrapServerKey(KeyMaterial serverKey);

  /** Unwraps a key; CORRUPTION naming {@code what} when the cluster key does not match. */
  KeyMaterial unwrapServerKey(WrappedKey wrapped, String what);
}
