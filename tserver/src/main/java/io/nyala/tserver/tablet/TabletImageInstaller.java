package io.nyala.tserver.tablet;

import java.io.IOException;

/**
 * The destination side of tablet copy: receives a {@link TabletImage}'s items and makes them this
 * replica's durable state, so that the state machine's {@code reinitialize()} then loads it.
 *
 * <p>Order of calls: {@link #begin} once, {@link #write} for every byte of every item (each
 * item's chunks in increasing offset order, items one after another), then {@link #install} or,
 * on any failure, {@link #abort}. Written data goes through this server's own Env or
 * BlockManager (so it is encrypted under this server's keys); nothing of the copy may be visible
 * as the replica's state before {@link #install} returns, and a crash before that leaves only
 * garbage the store deletes at its next start.
 */
public interface TabletImageInstaller {
  /** Starts a copy of the image that {@code manifest} describes. */
  void begin(byte[] manifest, long lastIndex, long lastTerm) throws IOException;

  /** Appends {@code data[off..off+len)} at {@code offset} of item {@code itemId}. */
  void write(String itemId, long offset, byte[] data, int off, int len) throws IOException;

  /** All items were received: makes the image the replica's durable state (atomically). */
  void install() throws IOException;

  /** Drops whatever was received. */
  void abort();
}
