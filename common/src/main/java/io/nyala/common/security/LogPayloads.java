package io.nyala.common.security;

import io.nyala.common.NyalaException;

/**
 * Seals and opens the Raft log payloads of one replicated state machine (a tablet, or the sys
 * catalog). Without a key it passes payloads through, so unencrypted clusters keep plaintext
 * entries; with a key every payload is a {@link WalSealer} blob, and a payload that is not one
 * is CORRUPTION (a tablet never mixes: its key is fixed when it is created).
 *
 * <p>The leader seals in {@code startTransaction} with the sealer of its current term: one
 * sealer per term, replaced when the term grows and never recreated for a term already used
 * here, so a (term key, nonce) pair never repeats. Every replica opens on apply. Thread-safe.
 */
public final class LogPayloads {
  private final String owner;
  /** The data key, or null for plaintext payloads. */
  private final KeyMaterial key;
  /** The sealer of the newest term this replica sealed in; guarded by this. */
  private WalSealer sealer;
  /** Caches the derived key of the term last opened; replaced whole. */
  private volatile WalSealer opener;

  private LogPayloads(String owner, KeyMaterial key) {
    this.owner = owner;
    this.key = key;
  }

  /** Plaintext payloads for {@code owner} (a tablet id, or "sys-catalog"; named in errors). */
  public static LogPayloads plain(String owner) {
    return new LogPayloads(owner, null);
  }

  /** Sealed payloads under {@code key}; {@code key} null means plaintext. */
  public static LogPayloads sealed(String owner, KeyMaterial key) {
    return new LogPayloads(owner, key);
  }

  public boolean isSealing() {
    return key != null;
  }

  /** Seals {@code payload} as the leader of {@code term}; plaintext passes through. */
  public byte[] seal(long term, byte[] payload) {
    if (key == null) {
      return payload;
    }
    return sealerFor(term).seal(payload);
  }

  private synchronized WalSealer sealerFor(long term) {
    if (sealer == null || sealer.term() < term) {
      sealer = new WalSealer(owner, key, term);
    } else if (sealer.term() > term) {
      // A stale term: sealing under it again could repeat a nonce of the old sealer.
      throw NyalaException.illegalState("tablet %s: cannot seal in term %d, already sealed in term %d",
          owner, term, sealer.term());
    }
    return sealer;
  }

  /** Opens a payload written by {@link #seal} on any replica, in any term. */
  public byte[] open(byte[] entry) {
    if (key == null) {
      return entry;
    }
    long term = WalSealer.header(owner, entry).term();
    WalSealer o = opener;
    if (o == null || o.term() != term) {
      // A sealer used only to open: its nonce counter is never touched.
      o = new WalSealer(owner, key, term);
      opener = o;
    }
    return o.open(entry);
  }
}
