package io.nyala.tserver.tablet.image;

import java.io.IOException;

/**
 * The destination side of tablet copy: receives a {@link TabletImage}'s items and makes them this
 * replica's durable state, so that the state machine's {@code reinitialize()} then loads it.
 *
 * <p>Order of calls: {@link #begin}, {@link #write} for every byte of every item (each item's
 * chunks in increasing offset order, items one after another), then {@link #install} or, on any
 * failure, {@link #abort}. A fetch that failed resumes at {@link #received} of its item. When
 * the source's session is lost, {@link #begin} may be called again with a new image: items of
 * the same id are the same bytes (ids are never reused), so what was received of items the new
 * image lists is kept and the rest dropped. Written data goes through this server's own Env or
 * BlockManager (so it is encrypted under this server's keys); nothing of the copy may be visible
 * as the replica's state before {@link #install} returns, and a crash before that leaves only
 * garbage the store deletes at its next start.
 */
public interface TabletImageInstaller {
  /**
   * Starts a copy of the image that {@code manifest} describes, or restarts it with a new image
   * (keeping what was received of items it lists too).
   */
  void begin(byte[] manifest, long lastIndex, long lastTerm) throws IOException;

  /** How many bytes of {@code itemId} are held: where its next chunk starts (0 if none). */
  long received(String itemId);

  /** Appends {@code data[off..off+len)} at {@code offset} of item {@code itemId}. */
  void write(String itemId, long offset, byte[] data, int off, int len) throws IOException;

  /** All items were received: makes the image the replica's durable state (atomically). */
  void install() throws IOException;

  /** Drops whatever was received. */
  void abort();
}
