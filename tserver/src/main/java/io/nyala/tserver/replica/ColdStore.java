package io.nyala.tserver.replica;

import io.nyala.tserver.tablet.BlockTabletStore;
import java.util.function.Supplier;

/**
 * The store a HIBERNATED replica opened to answer scans without its Raft group
 * (docs/dense-nodes.md, "Reading a cold tablet without waking it"), or nothing. It is opened at
 * the replica's durable state, which is its whole state while it is cold; a wake hands it to the
 * group's state machine ({@link #takeForWake}), so that scanners reading it go on reading the
 * same store with their snapshots pinned, and nothing closes it under them. Opened only under
 * the replica's monitor while it is HIBERNATED, so that no store is opened once a wake claimed
 * the replica (which takes it after its claim).
 */
final class ColdStore {
  private BlockTabletStore store;
  private long lastUseNanos;

  /**
   * The open cold store, opening it with {@code open} if none is; the caller holds the replica's
   * monitor and has checked that it is HIBERNATED.
   */
  synchronized BlockTabletStore open(Supplier<BlockTabletStore> open) {
    if (store == null) {
      store = open.get();
    }
    lastUseNanos = System.nanoTime();
    return store;
  }

  /** The store for the woken group's state machine to adopt (null: it opens its own). */
  synchronized BlockTabletStore takeForWake() {
    BlockTabletStore s = store;
    store = null;
    return s;
  }

  /**
   * Closes the store if it has not been used for {@code idleNanos} and {@code inUse} is false
   * (no scanner reads it); true if it closed one.
   */
  synchronized boolean closeIfUnused(long now, long idleNanos, boolean inUse) {
    if (store == null || inUse || now - lastUseNanos < idleNanos) {
      return false;
    }
    store.close();
    store = null;
    return true;
  }
}
