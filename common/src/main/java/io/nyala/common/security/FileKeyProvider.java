package io.nyala.common.security;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link KeyProvider}: the cluster key sits in a local file, version 1.
 *
 * <p><b>This is NOT secure.</b> Anyone who can read the key file (or a backup of it, or the disk
 * it sits on) can decrypt every file of the cluster; file permissions are the only protection.
 * It exists so that encryption at rest can be developed, tested and demonstrated without a KMS.
 * Production clusters should implement {@link KeyProvider} over a real KMS.
 *
 * <p>File format: either the key as hex (32, 48 or 64 hex digits; surrounding whitespace is
 * ignored), which is what {@link #openOrCreate} writes, or exactly 16, 24 or 32 raw bytes.
 * A created file has permissions 0600; opening a file readable by group or others logs a
 * warning (it does not fail: containers often run with odd umasks).
 */
public final class FileKeyProvider implements KeyProvider {
  private static final Logger LOG = LoggerFactory.getLogger(FileKeyProvider.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private final Path file;
  private final KeyMaterial key;

  private FileKeyProvider(Path file, KeyMaterial key) {
    this.file = file;
    this.key = key;
  }

  /** Reads an existing key file; NOT_FOUND if missing, INVALID_ARGUMENT if malformed. */
  public static FileKeyProvider open(Path file) {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("cluster key file %s does not exist", file);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read cluster key file " + file + ": " + e, e);
    }
    try {
      warnIfExposed(file);
      return new FileKeyProvider(file, parse(file, content));
    } finally {
      KeyMaterial.wipe(content);
    }
  }

  /**
   * Opens the key file, first creating it (0600, a fresh random key of {@code bits}, as hex) if
   * it does not exist. Creation writes a temporary file and renames it, so a crash never leaves
   * a half-written key behind.
   */
  public static FileKeyProvider openOrCreate(Path file, int bits) {
    KeyMaterial.checkAesLength(bits);
    if (!Files.exists(file)) {
      create(file, KeyMaterial.random(bits));
    }
    return open(file);
  }

  private static void create(Path file, KeyMaterial key) {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      Files.deleteIfExists(tmp);
      createOwnerOnly(tmp);
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(java.nio.ByteBuffer.wrap((key.toHex() + "\n").getBytes(StandardCharsets.US_ASCII)));
        ch.force(true);
      }
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file);
      }
      LOG.warn("created cluster key file {} ({} bits); a key file is NOT secure, use a KMS in "
          + "production", file, key.bits());
    } catch (IOException e) {
      throw NyalaException.ioError("cannot create cluster key file " + file + ": " + e, e);
    }
  }

  private static void createOwnerOnly(Path p) throws IOException {
    try {
      // The permission is set at creation, so the key is never readable by others, not even
      // for a moment.
      Files.createFile(p, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (UnsupportedOperationException e) {
      Files.createFile(p);
    }
  }

  private static KeyMaterial parse(Path file, byte[] content) {
    String text = new String(content, StandardCharsets.ISO_8859_1).strip();
    boolean hexLength = text.length() == 32 || text.length() == 48 || text.length() == 64;
    if (hexLength && text.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      return KeyMaterial.fromHex(text);
    }
    if (content.length == 16 || content.length == 24 || content.length == 32) {
      return KeyMaterial.of(content);
    }
    throw NyalaException.invalidArgument("cluster key file %s: expected 32, 48 or 64 hex digits "
        + "or 16, 24 or 32 raw bytes, found %d bytes", file, content.length);
  }

  private static void warnIfExposed(Path file) {
    try {
      Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
      if (!OWNER_ONLY.containsAll(perms)) {
        LOG.warn("cluster key file {} has permissions {}; it should be 0600", file,
            PosixFilePermissions.toString(perms));
      }
    } catch (UnsupportedOperationException | IOException e) {
      // Not a POSIX file system: nothing to check.
    }
  }

  /** The key file this provider reads. */
  public Path file() {
    return file;
  }

  @Override
  public int currentVersion() {
    return 1;
  }

  @Override
  public KeyMaterial clusterKey(int version) {
    if (version != 1) {
      throw NyalaException.notFound("cluster key version %d not in key file %s (it holds only "
          + "version 1)", version, file);
    }
    return key;
  }

  @Override
  public WrappedKey wrapServerKey(KeyMaterial serverKey) {
    return new WrappedKey(1, KeyWrap.wrap(key, serverKey));
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
