package io.nyala.minicluster;

import io.nyala.client.authn.UserCredentials;
import io.nyala.common.NyalaException;
import io.nyala.common.security.OwnerOnlyFiles;
import io.nyala.common.security.token.PasswordFileVerifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * The user a TLS minicluster's clients authenticate as (docs/architecture.md, "Who may call
 * what"): {@value #USER} with a random password, made at the first start as an operator would
 * with {@code nyala user add}, in {@code <tls dir>/users} (the masters'
 * {@code --user_credentials_file}) and {@code <tls dir>/user.password}, both owner-only and kept
 * across restarts. Convenient for tests, NOT a way to keep a password.
 */
final class ClusterUsers {
  /** The clients' user name. */
  static final String USER = "minicluster-user";

  private final Path usersFile;
  private final Path passwordFile;
  private final UserCredentials credentials;

  private ClusterUsers(Path usersFile, Path passwordFile, UserCredentials credentials) {
    this.usersFile = usersFile;
    this.passwordFile = passwordFile;
    this.credentials = credentials;
  }

  /** The user under {@code dir}, made at the first call. */
  static ClusterUsers create(Path dir) {
    Path users = dir.resolve("users");
    Path passwordFile = dir.resolve("user.password");
    try {
      if (!Files.exists(users)) {
        byte[] secret = new byte[18];
        new SecureRandom().nextBytes(secret);
        String password = Base64.getUrlEncoder().encodeToString(secret);
        Files.deleteIfExists(passwordFile);
        OwnerOnlyFiles.create(passwordFile);
        Files.writeString(passwordFile, password, StandardCharsets.UTF_8);
        PasswordFileVerifier.addUser(users, USER, password);
      }
      String password = Files.readString(passwordFile, StandardCharsets.UTF_8).strip();
      return new ClusterUsers(users, passwordFile, new UserCredentials(USER, password));
    } catch (IOException e) {
      throw NyalaException.ioError("cannot make the minicluster's user under " + dir + ": " + e,
          e);
    }
  }

  UserCredentials credentials() {
    return credentials;
  }

  /** The owner-only file holding the password, for a client configuration file. */
  Path passwordFile() {
    return passwordFile;
  }

  List<String> masterFlags() {
    return List.of("--user_credentials_file=" + usersFile);
  }
}
