package io.nyala.common.security;

import io.nyala.common.NyalaException;
import io.nyala.common.env.DurableDirs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link KeyProvider}: the cluster key versions sit in a local file.
 *
 * <p><b>This is NOT secure.</b> Anyone who can read the key file (or a backup of it, or the disk
 * it sits on) can decrypt every file of the cluster; file permissions are the only protection.
 * It exists so that encryption at rest can be developed, tested and demonstrated without a KMS.
 * Production clusters should implement {@link KeyProvider} over a real KMS.
 *
 * <p>File format (see {@link KeyFileVersions}): one {@code VERSION:HEX} line per version, the
 * highest current, which {@link #addVersion} and {@link #retireVersionsBefore} write (replacing
 * the file atomically, never in place); or a single key as hex (32, 48 or 64 hex digits;
 * surrounding whitespace is ignored), which is what {@link #openOrCreate} writes, or exactly 16,
 * 24 or 32 raw bytes: version 1. {@link #reload} re-reads the file (docs/encryption.md,
 * "Rotating the cluster key"). A created file has permissions 0600 from its creation on.
 * Opening a file that group or others may read or write is refused, naming the file, its mode
 * and the fix ({@code chmod 600});
 * on a file system without POSIX permissions that cannot be checked, and only a warning is
 * logged (docs/encryption.md, "The cluster key file").
 */
public final class FileKeyProvider implements KeyProvider {
  private static final Logger LOG = LoggerFactory.getLogger(FileKeyProvider.class);

  /** How long {@link #open} waits for a key file that looks half-written to complete. */
  static final long PARTIAL_WAIT_MS = 2_000;

  private final Path file;
  /** The versions the file held when last read; replaced whole. */
  private volatile NavigableMap<Integer, KeyMaterial> keys;

  private FileKeyProvider(Path file, NavigableMap<Integer, KeyMaterial> keys) {
    this.file = file;
    this.keys = keys;
  }

  /**
   * Reads an existing key file; NOT_FOUND if missing, INVALID_ARGUMENT if malformed or if group
   * or others may read or write it (before a byte of it is read). A file that
   * looks like a key still being written (empty, or hex digits without their final newline) is
   * read again for up to {@link #PARTIAL_WAIT_MS}; if it stays so, CORRUPTION naming the file.
   */
  public static FileKeyProvider open(Path file) {
    return open(file, PARTIAL_WAIT_MS);
  }

  static FileKeyProvider open(Path file, long partialWaitMs) {
    return new FileKeyProvider(file, read(file, partialWaitMs));
  }

  private static NavigableMap<Integer, KeyMaterial> read(Path file, long partialWaitMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(partialWaitMs);
    long backoffMs = 1;
    while (true) {
      refuseIfExposed(file);
      byte[] content = read(file);
      try {
        if (!looksPartial(content)) {
          return KeyFileVersions.parse(file, content);
        }
        if (System.nanoTime() - deadline >= 0) {
          throw NyalaException.corruption("cluster key file %s looks truncated (%d bytes: %s); "
              + "a key file holds 32, 48 or 64 hex digits and a newline. Restore it from a "
              + "backup: a new key cannot read what the old one encrypted", file,
              content.length, content.length == 0 ? "empty" : "hex digits and no newline");
        }
      } finally {
        KeyMaterial.wipe(content);
      }
      sleepQuietly(backoffMs);
      backoffMs = Math.min(backoffMs * 2, 50);
    }
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("cluster key file %s does not exist", file);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read cluster key file " + file + ": " + e, e);
    }
  }

  /**
   * Whether {@code content} may be a prefix of a key file that {@link #create} is writing or a
   * crash cut short: empty, or nothing but hex digits and shorter than the longest key. A
   * 128-bit key is exactly a prefix of a 256-bit one, so hex keys shorter than 256 bits must end
   * with a newline (as every created file does); raw keys are not hex text by far odds.
   */
  static boolean looksPartial(byte[] content) {
    if (content.length >= 64) {
      return false;
    }
    for (byte b : content) {
      if (Character.digit(b, 16) < 0) {
        return false;
      }
    }
    return true;
  }

  private static void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.ioError("interrupted while waiting for a cluster key file", e);
    }
  }

  /**
   * Opens the key file, first creating it (0600, a fresh random key of {@code bits}, as hex and
   * a newline) if it does not exist. Safe against any number of servers creating it at once,
   * in this process or others: see {@link #create}.
   */
  public static FileKeyProvider openOrCreate(Path file, int bits) {
    KeyMaterial.checkAesLength(bits);
    if (!Files.exists(file)) {
      create(file, KeyMaterial.random(bits));
    }
    return open(file);
  }

  /**
   * Creates the key file unless another creator got there first; never replaces one. The key
   * goes to a temp file of this creator's own (so two creators never write one file), is synced,
   * then hard-linked to the final name: a link fails if the name exists, so exactly one key wins
   * and the name only ever shows a complete, durable file. Where hard links are unsupported,
   * CREATE_NEW then write and sync; readers wait out the short window ({@link #open}).
   */
  private static void create(Path file, KeyMaterial key) {
    byte[] text = (key.toHex() + "\n").getBytes(StandardCharsets.US_ASCII);
    Path dir = file.toAbsolutePath().getParent();
    try {
      DurableDirs.create(dir);
      Path tmp = dir.resolve(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
      boolean won;
      try {
        writeNew(tmp, text);
        won = link(file, tmp);
      } finally {
        Files.deleteIfExists(tmp);
      }
      DurableDirs.sync(dir);
      if (won) {
        LOG.warn("created cluster key file {} ({} bits); a key file is NOT secure, use a KMS in "
            + "production", file, key.bits());
      }
    } catch (IOException e) {
      throw NyalaException.ioError("cannot create cluster key file " + file + ": " + e, e);
    } finally {
      KeyMaterial.wipe(text);
    }
  }

  /** Links {@code tmp} as {@code file}; false if {@code file} exists (another creator won). */
  private static boolean link(Path file, Path tmp) throws IOException {
    try {
      Files.createLink(file, tmp);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (UnsupportedOperationException | FileSystemException e) {
      try {
        writeNew(file, Files.readAllBytes(tmp));
        return true;
      } catch (FileAlreadyExistsException lost) {
        return false;
      }
    }
  }

  /** Creates {@code p} owner-only (CREATE_NEW), writes {@code text} and syncs it. */
  private static void writeNew(Path p, byte[] text) throws IOException {
    OwnerOnlyFiles.create(p);
    try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.wrap(text);
      while (b.hasRemaining()) {
        ch.write(b);
      }
      ch.force(true);
    }
  }

  /**
   * Adds a fresh random key of {@code bits} to {@code file} as a new version, one above the
   * highest it holds, and returns that version. The file is replaced atomically (an owner-only
   * temp file, synced, renamed over it); the old one-key format becomes version 1. Two callers
   * at once get two versions, never one lost (the file is locked while it changes). Servers
   * use the new version once their provider is {@link #reload reloaded}.
   */
  public static int addVersion(Path file, int bits) {
    KeyMaterial.checkAesLength(bits);
    return KeyFileVersions.locked(file, () -> {
      NavigableMap<Integer, KeyMaterial> now = new TreeMap<>(read(file, PARTIAL_WAIT_MS));
      int version = now.lastKey() + 1;
      now.put(version, KeyMaterial.random(bits));
      KeyFileVersions.replace(file, now);
      LOG.info("added cluster key version {} ({} bits) to {}", version, bits, file);
      return version;
    });
  }

  /**
   * Runs {@code action} holding the lock {@link #addVersion} and {@link #retireVersionsBefore}
   * take on {@code file} (a {@code FILE.lock} beside it), so that a tool can check the cluster
   * and change the file with no other tool changing it in between; those two may be called
   * inside.
   */
  public static <T> T withFileLock(Path file, Supplier<T> action) {
    return KeyFileVersions.locked(file, action);
  }

  /**
   * Removes every version below {@code keep} from {@code file} (replaced atomically, as
   * {@link #addVersion}); returns the versions removed. NOT_FOUND naming the file if it does
   * not hold {@code keep}: the file is never left without its newest key. The caller must know
   * that nothing still needs the old versions (docs/encryption.md, "Rotating the cluster key").
   */
  public static List<Integer> retireVersionsBefore(Path file, int keep) {
    return KeyFileVersions.locked(file, () -> {
      NavigableMap<Integer, KeyMaterial> now = new TreeMap<>(read(file, PARTIAL_WAIT_MS));
      if (!now.containsKey(keep)) {
        throw NyalaException.notFound("cluster key file %s does not hold version %d (it holds "
            + "%s): nothing retired", file, keep, now.keySet());
      }
      List<Integer> old = List.copyOf(now.headMap(keep, false).keySet());
      if (!old.isEmpty()) {
        now.headMap(keep, false).clear();
        KeyFileVersions.replace(file, now);
        LOG.info("retired cluster key versions {} from {}", old, file);
      }
      return old;
    });
  }

  /**
   * Refuses a key file that group or others may read or write: anyone who reads it decrypts the
   * cluster, anyone who writes it can swap the key.
   */
  static void refuseIfExposed(Path file) {
    OwnerOnlyFiles.refuseIfExposed(file, "cluster key file", "decrypt the cluster");
  }

  /** The key file this provider reads. */
  public Path file() {
    return file;
  }

  @Override
  public int currentVersion() {
    return keys.lastKey();
  }

  @Override
  public List<Integer> versions() {
    return List.copyOf(keys.keySet());
  }

  /**
   * The key of {@code version}. A version above the newest this provider read is looked for
   * once more in the file (it may have been added since: a server told of a rotation by an
   * entry or request before its own reload); NOT_FOUND naming the file and the version if it
   * still is not there.
   */
  @Override
  public KeyMaterial clusterKey(int version) {
    NavigableMap<Integer, KeyMaterial> now = keys;
    KeyMaterial k = now.get(version);
    if (k == null && version > now.lastKey()) {
      reload();
      now = keys;
      k = now.get(version);
    }
    if (k == null) {
      throw NyalaException.notFound("cluster key version %d is not in key file %s (it holds "
          + "versions %s)%s", version, file, now.keySet(), version < now.firstKey()
              ? ": it was retired, and what it wraps cannot be opened any more" : "");
    }
    return k;
  }

  @Override
  public void reload() {
    keys = read(file, PARTIAL_WAIT_MS);
  }

  @Override
  public WrappedKey wrapServerKey(KeyMaterial serverKey) {
    Map.Entry<Integer, KeyMaterial> current = keys.lastEntry();
    return new WrappedKey(current.getKey(), KeyWrap.wrap(current.getValue(), serverKey));
  }

  @Override
  public KeyMaterial unwrapServerKey(WrappedKey wrapped, String what) {
    KeyMaterial kek = clusterKey(wrapped.clusterKeyVersion());
    return KeyWrap.unwrap(kek, wrapped.wrapped(), what + " (cluster key from " + file + ")");
  }

  @Override
  public String toString() {
    return "FileKeyProvider[" + file + "]";
  }
}
