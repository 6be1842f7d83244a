package io.nyala.common.env;

import io.nyala.common.security.KeyMaterial;
import java.nio.file.Path;
import java.util.List;

/**
 * The only door to the disk for server files, so that encryption at rest is decided in one
 * place: a file is encrypted iff it is opened {@link OpenOptions#sensitive() sensitive} and this
 * env encrypts. All sizes and offsets are logical (after the 64-byte header of an encrypted
 * file). Every method throws {@link io.nyala.common.NyalaException}: NOT_FOUND, ALREADY_PRESENT,
 * IO_ERROR, and CORRUPTION naming the file for a bad encryption header or a wrong server key.
 *
 * <p>An interface because it is a real seam: tests may put a fault-injecting or in-memory env
 * behind the block managers. The disk env itself injects the faults a {@link DiskFaults} holds
 * (EIO, ENOSPC on write or sync), so that servers under test see them on their real files.
 */
public interface Env {
  /** An env that never encrypts. */
  static Env plain() {
    return plain(new DiskFaults());
  }

  /** An env that never encrypts, whose files fail as {@code faults} say (for fault tests). */
  static Env plain(DiskFaults faults) {
    return new DiskEnv(null, null, faults);
  }

  /**
   * An env that encrypts sensitive files: new files get a random {@code keyBits}-bit key
   * (AES-{@code keyBits}-CTR) wrapped by {@code serverKey}; existing files are read with the
   * algorithm their header names.
   */
  static Env encrypted(KeyMaterial serverKey, int keyBits) {
    return encrypted(serverKey, keyBits, new DiskFaults());
  }

  /** An encrypting env (see above) whose files fail as {@code faults} say. */
  static Env encrypted(KeyMaterial serverKey, int keyBits, DiskFaults faults) {
    return new DiskEnv(serverKey, CipherAlgorithm.forKeyBits(keyBits), faults);
  }

  /** Whether sensitive files are encrypted. */
  boolean isEncrypting();

  SequentialFile newSequentialFile(Path path, OpenOptions opts);

  RandomReadFile newRandomReadFile(Path path, OpenOptions opts);

  /** Opens for appending; {@link OpenMode#DEFAULT} means create or truncate. */
  WritableFile newWritableFile(Path path, OpenOptions opts);

  /** Opens for positional reads and writes; {@link OpenMode#DEFAULT} means create or open. */
  ReadWriteFile newReadWriteFile(Path path, OpenOptions opts);

  /** Deletes a file; NOT_FOUND if it does not exist. */
  void deleteFile(Path path);

  /** Renames atomically, replacing {@code to}; call {@link #syncDir} to make it durable. */
  void renameFile(Path from, Path to);

  /** Makes a directory's entries (creations, renames, deletions) durable. */
  void syncDir(Path dir);

  boolean exists(Path path);

  /** The names in a directory, sorted; NOT_FOUND if it does not exist. */
  List<String> listDir(Path dir);

  /** Creates a directory and its missing parents, durably (each new entry's parent synced). */
  void createDirs(Path dir);

  /**
   * Replaces a small file whole, crash-safely: writes {@code path.tmp}, syncs it, renames it
   * over {@code path} and syncs the directory. A crash leaves the old or the new content.
   */
  void replaceFile(Path path, byte[] content, OpenOptions opts);

  /** The whole logical content of a small file. */
  byte[] readFile(Path path, OpenOptions opts);
}
