package io.nyala.tserver.tablet.image;

import java.io.IOException;
import java.util.List;

/**
 * A store's durable image as tablet copy sends it (docs/architecture.md, "Tablet copy"): everything
 * the tablet holds up to {@link #lastIndex()}, described by a {@link #manifest()} and made of data
 * {@link #items()} read at any offset. The leader serves one per copy session; the destination
 * rebuilds a store from the same manifest and items through a {@link TabletImageInstaller}.
 *
 * <p>Contract for implementations (the block-based engine: manifest = its superblock, items =
 * the blocks it lists):
 * <ul>
 *   <li>Pinned: from creation until {@link #close()} the image stays readable and unchanged,
 *       whatever flushes, compactions or snapshots happen meanwhile (the engine keeps the listed
 *       blocks from being deleted). The state machine also keeps the Raft log after
 *       {@link #lastIndex()} while any image is open, so the destination can replay from there.
 *   <li>Plaintext: manifest and item bytes are logical (decrypted) data. The destination
 *       re-encrypts under its own keys when it writes them through its own Env/BlockManager.
 *   <li>Self-contained: manifest plus items are all the destination needs; item ids are unique
 *       within the image and meaningful to the destination's installer only.
 *   <li>Thread-safe reads: {@link #read} may be called concurrently for any items and offsets.
 * </ul>
 */
public interface TabletImage extends AutoCloseable {
  /** One data item: its id and length in bytes. */
  record Item(String id, long length) {}

  /** The Raft index the image holds everything up to. */
  long lastIndex();

  /** The term of the entry at {@link #lastIndex()}. */
  long lastTerm();

  /** The store's plaintext description of the image (format defined by the store). */
  byte[] manifest();

  List<Item> items();

  /**
   * Reads up to {@code length} bytes of item {@code itemId} from {@code offset} into
   * {@code buf[bufOffset..]}; returns how many were read, 0 at or past the item's end.
   * NOT_FOUND names an unknown item.
   */
  int read(String itemId, long offset, byte[] buf, int bufOffset, int length) throws IOException;

  /** Releases the pin. */
  @Override
  void close();
}
