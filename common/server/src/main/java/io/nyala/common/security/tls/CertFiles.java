package io.nyala.common.security.tls;

import io.nyala.common.NyalaException;
import io.nyala.common.security.OwnerOnlyFiles;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.security.pki.Csr;
import io.nyala.common.security.pki.EcKeys;
import io.nyala.common.security.pki.Pem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyPair;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The certificate files an operator makes before starting a TLS cluster, as CockroachDB's
 * {@code cert create-ca} and {@code create-node} do: a CA ({@value #CA_CERT}, {@value #CA_KEY})
 * and, signed by it, one certificate per server ({@code NAME.crt}: the server's certificate
 * then the CA's; {@code NAME.key}). Key files are created with mode 0600 and never overwritten.
 * Later the master's internal CA issues server certificates instead (docs/architecture.md,
 * "TLS on the wire").
 */
public final class CertFiles {
  /** The CA's certificate in a certificate directory: every server's --trusted_ca_file. */
  public static final String CA_CERT = "ca.crt";
  /** The CA's private key: keep it away from the servers once their certificates exist. */
  public static final String CA_KEY = "ca.key";
  /** How long a CA made here is valid. */
  public static final Duration CA_VALIDITY = Duration.ofDays(10 * 365);
  /** How long a server certificate made here is valid. */
  public static final Duration SERVER_VALIDITY = Duration.ofDays(365);
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private CertFiles() {}

  /** The files of one server's certificate and key. */
  public record ServerFiles(Path certFile, Path keyFile) {}

  /**
   * Makes a new CA in {@code dir} (created if missing).
   *
   * @return the CA certificate file
   * @throws NyalaException ALREADY_PRESENT if the directory already holds a CA
   */
  public static Path createCa(Path dir) {
    Path cert = dir.resolve(CA_CERT);
    Path key = dir.resolve(CA_KEY);
    if (Files.exists(cert) || Files.exists(key)) {
      throw NyalaException.alreadyPresent("%s already holds a CA (%s, %s); use another "
          + "directory, or delete them to start over", dir, CA_CERT, CA_KEY);
    }
    CertificateAuthority ca = CertificateAuthority.create(UUID.randomUUID().toString(),
        CA_VALIDITY, Clock.systemUTC());
    createDir(dir);
    writeSecret(key, Pem.encode(ca.privateKey()));
    write(cert, Pem.encode(ca.certificate()));
    return cert;
  }

  /**
   * Makes a certificate for server {@code name}, reached at {@code hosts} (names and IP
   * literals, each a subjectAltName), signed by the CA in {@code dir}.
   *
   * @throws NyalaException INVALID_ARGUMENT for a bad name or no hosts; NOT_FOUND when the
   *     directory has no CA; ALREADY_PRESENT when the server's files exist
   */
  public static ServerFiles createServer(Path dir, String name, List<String> hosts) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw NyalaException.invalidArgument("server name '%s': expected letters, digits, '.', "
          + "'_' or '-' (it names the files)", name);
    }
    List<String> names = hosts.stream().map(String::strip).filter(h -> !h.isEmpty()).toList();
    if (names.isEmpty()) {
      throw NyalaException.invalidArgument("server %s: no hosts given; list every name and "
          + "address it is reached at", name);
    }
    ServerFiles out = new ServerFiles(dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
    if (Files.exists(out.certFile()) || Files.exists(out.keyFile())) {
      throw NyalaException.alreadyPresent("server %s already has %s or %s", name,
          out.certFile(), out.keyFile());
    }
    CertificateAuthority ca = readCa(dir);
    KeyPair keys = EcKeys.generate();
    X509Certificate leaf = ca.issue(Csr.create(keys, name, names), SERVER_VALIDITY);
    writeSecret(out.keyFile(), Pem.encode(keys.getPrivate()));
    write(out.certFile(), Pem.encode(List.of(leaf, ca.certificate())));
    return out;
  }

  private static CertificateAuthority readCa(Path dir) {
    Path cert = dir.resolve(CA_CERT);
    Path key = dir.resolve(CA_KEY);
    if (!Files.exists(key)) {
      throw NyalaException.notFound("%s does not exist: make the CA first ('nyala cert "
          + "create-ca --dir %s')", key, dir);
    }
    OwnerOnlyFiles.refuseIfExposed(key, "CA key file", "issue certificates the cluster trusts");
    return CertificateAuthority.restore(Pem.readPrivateKey(read(key), key.toString()),
        Pem.readCertificate(read(cert), cert.toString()), Clock.systemUTC());
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("%s does not exist", file);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read " + file + ": " + e, e);
    }
  }

  private static void createDir(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot create certificate directory " + dir + ": " + e, e);
    }
  }

  private static void writeSecret(Path file, String pem) {
    try {
      OwnerOnlyFiles.create(file);
      Files.writeString(file, pem, StandardCharsets.US_ASCII, StandardOpenOption.WRITE,
          StandardOpenOption.SYNC);
    } catch (FileAlreadyExistsException e) {
      throw NyalaException.alreadyPresent("%s already exists; not overwriting a key", file);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot write " + file + ": " + e, e);
    }
  }

  private static void write(Path file, String pem) {
    try {
      Files.writeString(file, pem, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE, StandardOpenOption.SYNC);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot write " + file + ": " + e, e);
    }
  }
}
