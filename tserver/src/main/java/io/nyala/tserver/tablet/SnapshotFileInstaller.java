package io.nyala.tserver.tablet;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Installs a {@link SnapshotFileImage} copied from another replica: buffers the one item, then
 * writes it as this replica's snapshot file through this server's {@link Env} (so it is encrypted
 * under this server's key) and hands the file to the state machine, whose reinitialize loads it.
 * The file appears in one atomic replace, so a crash never leaves a half snapshot.
 */
public final class SnapshotFileInstaller implements TabletImageInstaller {
  /** Where a snapshot at a (term, index) lives, and what to do once it is written. */
  public interface Target {
    Path snapshotFile(long term, long index);

    void installed(Path file, long term, long index) throws IOException;
  }

  private final Env env;
  private final Target target;
  private final ByteArrayOutputStream received = new ByteArrayOutputStream();
  private long lastIndex = -1;
  private long lastTerm;

  public SnapshotFileInstaller(Env env, Target target) {
    this.env = env;
    this.target = target;
  }

  @Override
  public void begin(byte[] manifest, long index, long term) {
    if (!Arrays.equals(manifest, SnapshotFileImage.MANIFEST)) {
      throw NyalaException.invalidArgument("tablet image manifest '%s' is not an in-memory store "
          + "snapshot", new String(manifest, StandardCharsets.UTF_8));
    }
    this.lastIndex = index;
    this.lastTerm = term;
  }

  @Override
  public void write(String itemId, long offset, byte[] data, int off, int len) {
    if (!SnapshotFileImage.ITEM.equals(itemId) || offset != received.size()) {
      throw NyalaException.invalidArgument("unexpected chunk of item '%s' at offset %d (have %d "
          + "bytes of '%s')", itemId, offset, received.size(), SnapshotFileImage.ITEM);
    }
    received.write(data, off, len);
  }

  @Override
  public void install() throws IOException {
    if (lastIndex < 0) {
      throw NyalaException.illegalState("tablet image installed before it was begun");
    }
    Path file = target.snapshotFile(lastTerm, lastIndex);
    env.replaceFile(file, received.toByteArray(), OpenOptions.SENSITIVE);
    target.installed(file, lastTerm, lastIndex);
  }

  @Override
  public void abort() {
    received.reset();
  }
}
