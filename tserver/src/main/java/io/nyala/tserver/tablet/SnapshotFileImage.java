package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The in-memory store's {@link TabletImage}: one item, {@value #ITEM}, the plaintext bytes of its
 * latest snapshot file ({@link StoreSnapshotFile}, which carries its own CRC). The bytes are read
 * once when the image opens, so the image stays valid whatever later snapshots delete; that
 * costs one copy of the store's rows in memory, like the store itself.
 */
public final class SnapshotFileImage implements TabletImage {
  /** The only item's id. */
  public static final String ITEM = "snapshot";
  /** The manifest: names the format, so an installer of another store refuses it clearly. */
  static final byte[] MANIFEST = "nyala-mem-snapshot-1".getBytes(StandardCharsets.UTF_8);

  private final long lastIndex;
  private final long lastTerm;
  private final byte[] bytes;
  private final Runnable onClose;
  /** Guarded by this object's monitor: the pin is released once. */
  private boolean closed;

  private SnapshotFileImage(long lastIndex, long lastTerm, byte[] bytes, Runnable onClose) {
    this.lastIndex = lastIndex;
    this.lastTerm = lastTerm;
    this.bytes = bytes;
    this.onClose = onClose;
  }

  /**
   * Reads the snapshot {@code file} (written at {@code lastTerm}/{@code lastIndex}) through
   * {@code env}; {@code onClose} runs once when the image is closed (it releases the log pin).
   */
  public static SnapshotFileImage open(Env env, Path file, long lastIndex, long lastTerm,
      Runnable onClose) throws IOException {
    return new SnapshotFileImage(lastIndex, lastTerm, env.readFile(file, OpenOptions.SENSITIVE),
        onClose);
  }

  @Override
  public long lastIndex() {
    return lastIndex;
  }

  @Override
  public long lastTerm() {
    return lastTerm;
  }

  @Override
  public byte[] manifest() {
    return MANIFEST.clone();
  }

  @Override
  public List<Item> items() {
    return List.of(new Item(ITEM, bytes.length));
  }

  @Override
  public int read(String itemId, long offset, byte[] buf, int bufOffset, int length) {
    if (!ITEM.equals(itemId)) {
      throw NyalaException.notFound("tablet image item '%s' not found (the in-memory store's "
          + "image has only '%s')", itemId, ITEM);
    }
    if (offset < 0) {
      throw NyalaException.invalidArgument("negative offset %d in item '%s'", offset, itemId);
    }
    if (offset >= bytes.length) {
      return 0;
    }
    int n = (int) Math.min(length, bytes.length - offset);
    System.arraycopy(bytes, (int) offset, buf, bufOffset, n);
    return n;
  }

  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      onClose.run();
    }
  }
}
