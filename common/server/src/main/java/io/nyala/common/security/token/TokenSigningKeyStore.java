package io.nyala.common.security.token;

import java.util.List;

/**
 * Where a {@link TokenSigner} keeps its keys so that another leader, or this one after a
 * restart, goes on with them (docs/architecture.md, "Client tokens"). The leader master's is
 * the sys catalog.
 */
public interface TokenSigningKeyStore {
  /**
   * Every key stored, in any order.
   *
   * @throws io.nyala.common.NyalaException naming the key that cannot be read back
   */
  List<TokenSigningKey> load();

  /**
   * Stores {@code put} (new keys, and keys whose expiry changed) and forgets {@code deleted}
   * (keys whose last token expired), all at once; returns only once they are durable. A
   * signer uses a new key only after this returned.
   *
   * @throws io.nyala.common.NyalaException if they could not be stored (e.g. NOT_LEADER)
   */
  void save(List<TokenSigningKey> put, List<Long> deleted);
}
