package io.nyala.common.security;

import io.nyala.common.NyalaException;
import io.nyala.common.env.DurableDirs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The contents of a cluster key file: its key versions (docs/encryption.md, "Rotating the
 * cluster key"). Two formats are read:
 *
 * <ul>
 *   <li>one line {@code VERSION:HEX} per version (what {@link #replace} writes; blank lines and
 *       lines starting with {@code #} are skipped), the highest version being current;
 *   <li>the older single key, as hex or as 16, 24 or 32 raw bytes: version 1.
 * </ul>
 *
 * <p>A file is never rewritten in place: {@link #replace} writes an owner-only temp file,
 * syncs it, renames it over the file and syncs the directory, so a reader sees the old
 * versions or the new ones, never a mix, and a crash leaves one of the two.
 */
final class KeyFileVersions {
  /** Serializes read-modify-write of key files within this JVM (file locks are per process). */
  private static final ReentrantLock JVM_LOCK = new ReentrantLock();

  private KeyFileVersions() {}

  /** Parses {@code content} of {@code file}; INVALID_ARGUMENT naming the file if malformed. */
  static NavigableMap<Integer, KeyMaterial> parse(Path file, byte[] content) {
    String text = new String(content, StandardCharsets.ISO_8859_1).strip();
    if (text.indexOf(':') >= 0 && isText(content)) {
      return parseVersions(file, text);
    }
    TreeMap<Integer, KeyMaterial> one = new TreeMap<>();
    boolean hexLength = text.length() == 32 || text.length() == 48 || text.length() == 64;
    if (hexLength && text.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      one.put(1, KeyMaterial.fromHex(text));
    } else if (content.length == 16 || content.length == 24 || content.length == 32) {
      one.put(1, KeyMaterial.of(content));
    } else {
      throw NyalaException.invalidArgument("cluster key file %s: expected lines VERSION:HEX, or "
          + "32, 48 or 64 hex digits, or 16, 24 or 32 raw bytes; found %d bytes", file,
          content.length);
    }
    return Collections.unmodifiableNavigableMap(one);
  }

  private static boolean isText(byte[] content) {
    for (byte b : content) {
      if (b < 0x09 || b > 0x7e || (b > 0x0d && b < 0x20)) {
        return false;
      }
    }
    return true;
  }

  private static NavigableMap<Integer, KeyMaterial> parseVersions(Path file, String text) {
    TreeMap<Integer, KeyMaterial> out = new TreeMap<>();
    int lineNo = 0;
    for (String raw : text.split("\n")) {
      lineNo++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      int version;
      KeyMaterial key;
      try {
        version = Integer.parseInt(line.substring(0, Math.max(colon, 0)).strip());
        key = KeyMaterial.fromHex(line.substring(colon + 1));
      } catch (NumberFormatException | NyalaException e) {
        throw NyalaException.invalidArgument("cluster key file %s, line %d: expected "
            + "VERSION:HEX (a positive version, 32, 48 or 64 hex digits)", file, lineNo);
      }
      if (version < 1) {
        throw NyalaException.invalidArgument("cluster key file %s, line %d: version %d is not "
            + "positive", file, lineNo, version);
      }
      if (out.put(version, key) != null) {
        throw NyalaException.invalidArgument("cluster key file %s holds version %d twice",
            file, version);
      }
    }
    if (out.isEmpty()) {
      throw NyalaException.invalidArgument("cluster key file %s holds no key version", file);
    }
    return Collections.unmodifiableNavigableMap(out);
  }

  /** The text {@link #parse} reads back as {@code versions}. */
  static byte[] format(NavigableMap<Integer, KeyMaterial> versions) {
    StringBuilder sb = new StringBuilder("# Nyala cluster key versions (VERSION:HEX); the "
        + "highest is current. Keep it owner-only (chmod 600).\n");
    for (Map.Entry<Integer, KeyMaterial> e : versions.entrySet()) {
      sb.append(e.getKey()).append(':').append(e.getValue().toHex()).append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Replaces {@code file} by one holding {@code versions}: an owner-only temp file, synced,
   * renamed over it, the directory synced.
   */
  static void replace(Path file, NavigableMap<Integer, KeyMaterial> versions) {
    byte[] text = format(versions);
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = dir.resolve(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      try {
        OwnerOnlyFiles.create(tmp);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
          ByteBuffer b = ByteBuffer.wrap(text);
          while (b.hasRemaining()) {
            ch.write(b);
          }
          ch.force(true);
        }
        try {
          Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE,
              StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          throw NyalaException.ioError("cannot replace cluster key file " + file + " atomically "
              + "(its file system cannot rename over a file); it was left unchanged", e);
        }
      } finally {
        Files.deleteIfExists(tmp);
      }
      DurableDirs.sync(dir);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot replace cluster key file " + file + ": " + e, e);
    } finally {
      KeyMaterial.wipe(text);
    }
  }

  /**
   * Runs {@code action} holding an exclusive lock on {@code FILE.lock} (and a lock of this
   * JVM), so that two tools adding or retiring versions of one key file at once never both
   * read the same versions and one lose the other's change.
   */
  static <T> T locked(Path file, Supplier<T> action) {
    if (JVM_LOCK.isHeldByCurrentThread()) {
      // Nested: this thread holds the file lock already (a JVM holds a file lock once).
      return action.get();
    }
    Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
    JVM_LOCK.lock();
    try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      ch.lock();
      return action.get();
    } catch (IOException e) {
      throw NyalaException.ioError("cannot lock " + lockFile + " to change cluster key file "
          + file + ": " + e, e);
    } finally {
      JVM_LOCK.unlock();
    }
  }
}
