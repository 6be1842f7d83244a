package io.nyala.client;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;

/**
 * A client configuration file: what a client needs to reach a secure cluster, so that nobody
 * types certificates or passwords (docs/architecture.md, "TLS on the wire").
 * {@code nyala local-cluster} writes one, owner-only, and prints
 * {@code export NYALA_CLIENT_CONFIG=<file>}; {@link NyalaClient.Builder#clientConfig} and the
 * {@code nyala} commands read it. A Java properties file:
 *
 * <pre>
 * masters=127.0.0.1:7051
 * trusted_ca_file=/home/me/nyala-data/tls/ca.crt
 * user=minicluster-user
 * password_file=/home/me/nyala-data/tls/user.password
 * </pre>
 *
 * <p>Every key is optional; relative paths are read from the file's own directory. The
 * password itself is never in the file, only the name of an owner-only file holding it.
 *
 * @param masters comma-separated master addresses, or null
 * @param trustedCaFile the cluster's CA certificate (PEM), or null for plaintext
 * @param user the user to authenticate as, or null for none
 * @param passwordFile the file whose first line is the user's password; set when user is
 */
public record ClientConfig(String masters, Path trustedCaFile, String user, Path passwordFile) {
  /** The environment variable naming the client configuration file. */
  public static final String ENV = "NYALA_CLIENT_CONFIG";
  private static final Set<String> KEYS =
      Set.of("masters", "trusted_ca_file", "user", "password_file");

  /**
   * Checks that a user comes with a password file.
   *
   * @throws NyalaException INVALID_ARGUMENT for a user without a password file or the reverse
   */
  public ClientConfig {
    if ((user == null) != (passwordFile == null)) {
      throw NyalaException.invalidArgument("a client config needs user and password_file "
          + "together, got user %s and password_file %s", user, passwordFile);
    }
  }

  /**
   * Reads a client configuration file.
   *
   * @param file the properties file
   * @return its settings
   * @throws NyalaException NOT_FOUND when it does not exist; INVALID_ARGUMENT naming the file
   *     and the key for an unknown key or a user without a password file; IO_ERROR otherwise
   */
  public static ClientConfig read(Path file) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("client config file %s does not exist (see %s)", file, ENV);
    } catch (IOException | IllegalArgumentException e) {
      throw NyalaException.ioError("cannot read client config file " + file + ": " + e, e);
    }
    for (String key : p.stringPropertyNames()) {
      if (!KEYS.contains(key)) {
        throw NyalaException.invalidArgument("client config file %s: unknown key '%s' "
            + "(known: masters, trusted_ca_file, user, password_file)", file, key);
      }
    }
    Path dir = file.toAbsolutePath().getParent();
    try {
      return new ClientConfig(value(p, "masters"), path(dir, value(p, "trusted_ca_file")),
          value(p, "user"), path(dir, value(p, "password_file")));
    } catch (NyalaException e) {
      throw NyalaException.invalidArgument("client config file %s: %s", file, e.getMessage());
    }
  }

  /**
   * The file {@value #ENV} names, read; null when the variable is unset or empty.
   *
   * @return its settings, or null
   * @throws NyalaException as {@link #read} does
   */
  public static ClientConfig fromEnvironment() {
    String file = System.getenv(ENV);
    return file == null || file.isBlank() ? null : read(Path.of(file.trim()));
  }

  /**
   * The user's password: the first line of {@link #passwordFile()}.
   *
   * @return the password, or null when the configuration has no user
   * @throws NyalaException NOT_FOUND or IO_ERROR naming the password file
   */
  public String password() {
    if (passwordFile == null) {
      return null;
    }
    try {
      return Files.readAllLines(passwordFile, StandardCharsets.UTF_8).stream().findFirst()
          .map(String::strip).orElse("");
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("password file %s of user '%s' does not exist",
          passwordFile, user);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read password file " + passwordFile + ": " + e, e);
    }
  }

  /**
   * The file's text, as {@link #read} reads it back (keys without a value left out).
   *
   * @return properties lines, one per set key
   */
  public String format() {
    StringBuilder s = new StringBuilder("# Nyala client configuration (docs/architecture.md, "
        + "\"TLS on the wire\")\n");
    line(s, "masters", masters);
    line(s, "trusted_ca_file", trustedCaFile);
    line(s, "user", user);
    line(s, "password_file", passwordFile);
    return s.toString();
  }

  private static void line(StringBuilder s, String key, Object value) {
    if (value != null) {
      // Properties treat a backslash as an escape; paths on Linux have none.
      s.append(key).append('=').append(value).append('\n');
    }
  }

  private static String value(Properties p, String key) {
    String v = p.getProperty(key);
    return v == null || v.isBlank() ? null : v.strip();
  }

  private static Path path(Path dir, String value) {
    return value == null ? null : dir.resolve(value);
  }
}
