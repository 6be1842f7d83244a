package io.nyala.common.security;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Secret files only their owner may read or write (mode 0600): the cluster key file and TLS
 * private keys. Created owner-only from the first moment; opened only if group and others have
 * no access. Where the file system has no POSIX permissions there is nothing to check, and a
 * warning is logged instead.
 */
public final class OwnerOnlyFiles {
  private static final Logger LOG = LoggerFactory.getLogger(OwnerOnlyFiles.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");
  /** Any of these lets someone other than the owner read the secret or replace it. */
  private static final Set<PosixFilePermission> EXPOSING = Set.of(
      PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
      PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);

  private OwnerOnlyFiles() {}

  /**
   * Refuses a file that group or others may read or write.
   *
   * @param file the file
   * @param what what it is, e.g. "cluster key file", for messages
   * @param harm what whoever reads it can do, e.g. "decrypt the cluster"
   * @throws NyalaException NOT_FOUND if missing, INVALID_ARGUMENT naming the file, its mode and
   *     the fix ({@code chmod 600}) if exposed
   */
  public static void refuseIfExposed(Path file, String what, String harm) {
    Set<PosixFilePermission> perms;
    try {
      perms = Files.getPosixFilePermissions(file);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("%s %s does not exist", what, file);
    } catch (UnsupportedOperationException e) {
      LOG.warn("{} {} is on a file system without POSIX permissions: cannot check that only its "
          + "owner may read it", what, file);
      return;
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read the permissions of " + what + " " + file + ": "
          + e, e);
    }
    if (perms.stream().anyMatch(EXPOSING::contains)) {
      throw NyalaException.invalidArgument("%s %s has mode %s: group or others may read or "
          + "write it, and whoever reads it can %s. Run 'chmod 600 %s' and start again", what,
          file, PosixFilePermissions.toString(perms), harm, file);
    }
  }

  /**
   * Creates {@code p} (it must not exist) with mode 0600 from its creation on, so the secret is
   * never readable by others, not even for a moment.
   */
  public static void create(Path p) throws IOException {
    try {
      Files.createFile(p, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (UnsupportedOperationException e) {
      Files.createFile(p);
    }
  }
}
