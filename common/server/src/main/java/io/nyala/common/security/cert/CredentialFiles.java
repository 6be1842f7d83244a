package io.nyala.common.security.cert;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.pki.Pem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;

/**
 * Where a server keeps the key and certificate it got from the cluster's CA (a tablet server's
 * or a master's, requested of the leader master or issued by a master's own CA key): the
 * directory {@code <wal dir>/tls}, owner-only (0700). The key, {@code server.key}, is PKCS#8 PEM
 * written through the server's {@link Env} as a sensitive file (sealed when the server encrypts
 * at rest, as a requesting server must to prove membership) and owner-only (0600), made once
 * and reused across restarts; the chain, {@code server.crt} (leaf, CA), is public and plain.
 */
public final class CredentialFiles {
  static final String DIR = "tls";
  static final String KEY = "server.key";
  static final String CHAIN = "server.crt";
  private static final Set<PosixFilePermission> DIR_MODE =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE_MODE =
      PosixFilePermissions.fromString("rw-------");

  private final Env env;
  private final Path dir;

  /** The files under {@code walDir}/tls, read and written through {@code env}. */
  public CredentialFiles(Env env, Path walDir) {
    this.env = env;
    this.dir = walDir.resolve(DIR);
  }

  /** The directory holding the files. */
  public Path dir() {
    return dir;
  }

  /** The path of the stored key. */
  public Path keyFile() {
    return dir.resolve(KEY);
  }

  /** The server's key pair: the stored one, else a new one, stored before it is returned. */
  public KeyPair loadOrCreateKey() {
    Path file = keyFile();
    if (env.exists(file)) {
      String pem = new String(env.readFile(file, OpenOptions.SENSITIVE),
          StandardCharsets.US_ASCII);
      return EcKeys.keyPairOf(Pem.readPrivateKey(pem, file.toString()));
    }
    KeyPair keys = EcKeys.generate();
    ensureDir();
    writeOwnerOnly(file, Pem.encode(keys.getPrivate()), OpenOptions.SENSITIVE);
    return keys;
  }

  /** The stored chain (leaf first), or null when none is stored. */
  public List<X509Certificate> loadChain() {
    Path file = dir.resolve(CHAIN);
    if (!env.exists(file)) {
      return null;
    }
    return Pem.readCertificates(new String(env.readFile(file, OpenOptions.NOT_SENSITIVE),
        StandardCharsets.US_ASCII), file.toString());
  }

  /** Stores {@code chain} (leaf first) in place of the previous one. */
  public void storeChain(List<X509Certificate> chain) {
    ensureDir();
    writeOwnerOnly(dir.resolve(CHAIN), Pem.encode(chain), OpenOptions.NOT_SENSITIVE);
  }

  private void ensureDir() {
    env.createDirs(dir);
    setMode(dir, DIR_MODE);
  }

  /**
   * Writes {@code content} crash-safely; the directory is already owner-only, so the file is
   * never readable by others, and it is made 0600 as well.
   */
  private void writeOwnerOnly(Path file, String content, OpenOptions opts) {
    env.replaceFile(file, content.getBytes(StandardCharsets.US_ASCII), opts);
    setMode(file, FILE_MODE);
  }

  private static void setMode(Path p, Set<PosixFilePermission> mode) {
    try {
      Files.setPosixFilePermissions(p, mode);
    } catch (UnsupportedOperationException e) {
      // A file system without POSIX permissions: nothing to set (OwnerOnlyFiles warns alike).
    } catch (IOException e) {
      throw new NyalaException(StatusCode.IO_ERROR, "cannot make " + p + " owner-only: " + e, e);
    }
  }
}
