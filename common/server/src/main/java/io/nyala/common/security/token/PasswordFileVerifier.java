package io.nyala.common.security.token;

import io.nyala.common.NyalaException;
import io.nyala.common.security.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The master's {@code --user_credentials_file}: one {@code user:password-hash} line per user
 * ({@link PasswordHash}), owner-only like the cluster key file; blank lines and lines starting
 * with {@code #} are skipped. Read once at start; {@link #addUser} is what {@code nyala user add}
 * and the minicluster use to write it.
 */
public final class PasswordFileVerifier implements CredentialVerifier {
  private static final String WHAT = "user credentials file";

  /** User to encoded hash; never changes after construction. */
  private final Map<String, String> hashes;

  private PasswordFileVerifier(Map<String, String> hashes) {
    this.hashes = Map.copyOf(hashes);
  }

  /**
   * Reads {@code file}.
   *
   * @throws NyalaException NOT_FOUND if missing, INVALID_ARGUMENT if others may read it or a
   *     line is malformed (naming the file and line number)
   */
  public static PasswordFileVerifier read(Path file) {
    OwnerOnlyFiles.refuseIfExposed(file, WHAT, "try every password offline");
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read " + WHAT + " " + file + ": " + e, e);
    }
    Map<String, String> hashes = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || colon == line.length() - 1) {
        throw NyalaException.invalidArgument("%s %s line %d: expected user:password-hash", WHAT,
            file, i + 1);
      }
      hashes.put(line.substring(0, colon), line.substring(colon + 1));
    }
    return new PasswordFileVerifier(hashes);
  }

  /**
   * Appends {@code user} with a hash of {@code password} to {@code file}, creating it owner-only.
   *
   * @throws NyalaException INVALID_ARGUMENT for a bad user name, ALREADY_PRESENT if the file
   *     has the user
   */
  public static void addUser(Path file, String user, String password) {
    if (user.isEmpty() || user.contains(":") || !user.strip().equals(user)) {
      throw NyalaException.invalidArgument("user name '%s': must be non-empty, without ':' or "
          + "surrounding spaces", user);
    }
    if (password.isEmpty()) {
      throw NyalaException.invalidArgument("password of user '%s' is empty", user);
    }
    try {
      if (!Files.exists(file)) {
        OwnerOnlyFiles.create(file);
      } else if (read(file).hashes.containsKey(user)) {
        throw NyalaException.alreadyPresent("user '%s' is already in %s", user, file);
      }
      Files.writeString(file, user + ":" + PasswordHash.hash(password) + "\n",
          StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot write " + WHAT + " " + file + ": " + e, e);
    }
  }

  @Override
  public boolean verify(String user, String password) {
    String hash = hashes.get(user);
    return hash != null && PasswordHash.matches(password, hash);
  }
}
