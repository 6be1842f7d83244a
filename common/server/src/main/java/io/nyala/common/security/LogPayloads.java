package io.nyala.common.security;

import io.nyala.common.NyalaException;
import java.util.Arrays;

/**
 * Seals and opens the Raft log payloads of one replicated state machine (a tablet, or the sys
 * catalog). Without a key it passes payloads through, so unencrypted clusters keep plaintext
 * entries; with a key every payload is a {@link WalSealer} blob, and a payload that is not one
 * is CORRUPTION (a tablet never mixes: its key is fixed when it is created).
 *
 * <p>The leader seals in {@code startTransaction} with the sealer of its current term: one
 * sealer per term, replaced when the term grows and never recreated for a term already used
 * here, so a (term key, nonce) pair never repeats. Every replica opens on apply. Thread-safe.
 *
 * <p>{@link #wrapped} payloads (the sys catalog) need no shared data key: each term this replica
 * leads gets a fresh random key, carried wrapped under the cluster key in a {@link KeyEnvelope}
 * before every payload, so two catalogs (two clusters sharing a cluster key, a re-formatted
 * master) never seal under one key (docs/encryption.md).
 */
public final class LogPayloads {
  private final String owner;
  /** The data key, or null for plaintext or {@link #wrapped} payloads. */
  private final KeyMaterial key;
  /** Wraps and unwraps the per-term keys of {@link #wrapped} payloads; else null. */
  private final KeyProvider provider;
  private final int keyBits;
  /** The sealer of the newest term this replica sealed in; guarded by this. */
  private WalSealer sealer;
  /** The envelope of {@link #sealer}'s key ({@link #wrapped} only); guarded by this. */
  private byte[] sealerEnvelope;
  /** {@link #sealer}'s key and the cluster key version of its envelope; guarded by this. */
  private KeyMaterial termKey;
  private int envelopeVersion;
  /** Caches the derived key of the term last opened; replaced whole. */
  private volatile WalSealer opener;
  /** Caches the key of the envelope last opened ({@link #wrapped} only); replaced whole. */
  private volatile EnvelopeOpener envelopeOpener;

  private record EnvelopeOpener(WrappedKey wrapped, WalSealer opener) {}

  private LogPayloads(String owner, KeyMaterial key, KeyProvider provider, int keyBits) {
    this.owner = owner;
    this.key = key;
    this.provider = provider;
    this.keyBits = keyBits;
  }

  /** Plaintext payloads for {@code owner} (a tablet id, or "sys-catalog"; named in errors). */
  public static LogPayloads plain(String owner) {
    return new LogPayloads(owner, null, null, 0);
  }

  /** Sealed payloads under {@code key}; {@code key} null means plaintext. */
  public static LogPayloads sealed(String owner, KeyMaterial key) {
    return new LogPayloads(owner, key, null, 0);
  }

  /**
   * Sealed payloads, each term's under a fresh random key of {@code keyBits} wrapped by
   * {@code provider}'s cluster key and carried in the payload; {@code provider} null means
   * plaintext.
   */
  public static LogPayloads wrapped(String owner, KeyProvider provider, int keyBits) {
    if (provider != null) {
      KeyMaterial.checkAesLength(keyBits);
    }
    return new LogPayloads(owner, null, provider, keyBits);
  }

  public boolean isSealing() {
    return key != null || provider != null;
  }

  /** Seals {@code payload} as the leader of {@code term}; plaintext passes through. */
  public byte[] seal(long term, byte[] payload) {
    if (!isSealing()) {
      return payload;
    }
    byte[] envelope;
    WalSealer s;
    synchronized (this) {
      s = sealerFor(term);
      if (provider != null && provider.currentVersion() != envelopeVersion) {
        // The cluster key rotated mid-term: the same term key, wrapped under the new version,
        // so that new entries need only the new cluster key (docs/encryption.md).
        wrapTermKey();
      }
      envelope = sealerEnvelope;
    }
    byte[] sealed = s.seal(payload);
    if (envelope == null) {
      return sealed;
    }
    byte[] out = Arrays.copyOf(envelope, envelope.length + sealed.length);
    System.arraycopy(sealed, 0, out, envelope.length, sealed.length);
    return out;
  }

  private synchronized WalSealer sealerFor(long term) {
    if (sealer == null || sealer.term() < term) {
      if (provider == null) {
        sealer = new WalSealer(owner, key, term);
      } else {
        termKey = KeyMaterial.random(keyBits);
        wrapTermKey();
        sealer = new WalSealer(owner, termKey, term);
      }
    } else if (sealer.term() > term) {
      // A stale term: sealing under it again could repeat a nonce of the old sealer.
      throw NyalaException.illegalState(
          "tablet %s: cannot seal in term %d, already sealed in term %d",
          owner, term, sealer.term());
    }
    return sealer;
  }

  private synchronized void wrapTermKey() {
    WrappedKey w = provider.wrapServerKey(termKey);
    sealerEnvelope = KeyEnvelope.prefix(w);
    envelopeVersion = w.clusterKeyVersion();
  }

  /**
   * The cluster key version of the envelope of {@code entry} (a {@link #wrapped} payload), or
   * 0 for payloads that carry no envelope.
   */
  public int envelopeVersion(byte[] entry) {
    if (provider == null) {
      return 0;
    }
    return KeyEnvelope.parse(owner, entry).key().clusterKeyVersion();
  }

  /** Opens a payload written by {@link #seal} on any replica, in any term. */
  public byte[] open(byte[] entry) {
    if (provider != null) {
      return openEnvelope(entry);
    }
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

  private byte[] openEnvelope(byte[] entry) {
    KeyEnvelope.Parsed p = KeyEnvelope.parse(owner, entry);
    byte[] body = Arrays.copyOfRange(entry, p.bodyOffset(), entry.length);
    EnvelopeOpener o = envelopeOpener;
    if (o == null || !o.wrapped().equals(p.key())) {
      KeyMaterial k = provider.unwrapServerKey(p.key(), owner + " payload key");
      // A sealer used only to open (one key per term): its term key is derived once.
      o = new EnvelopeOpener(p.key(),
          new WalSealer(owner, k, WalSealer.header(owner, body).term()));
      envelopeOpener = o;
    }
    return o.opener().open(body);
  }
}
