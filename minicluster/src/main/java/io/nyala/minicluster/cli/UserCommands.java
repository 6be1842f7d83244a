package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import io.nyala.common.security.token.PasswordFileVerifier;
import java.io.Console;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nyala user}: the masters' {@code --user_credentials_file}, whose users may get an
 * authentication token (docs/architecture.md, "Who may call what"). Instant; prints one line.
 */
@Command(name = "user", mixinStandardHelpOptions = true,
    description = "Manages the users of a masters' --user_credentials_file.",
    subcommands = {UserCommands.Add.class})
final class UserCommands implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** {@code nyala user add --file F --user U [--password-file P]}. */
  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Adds USER with a PBKDF2 hash of its password to FILE (made owner-only). "
          + "The password is read from --password-file, else asked twice on the terminal.")
  static final class Add implements Callable<Integer> {
    @Option(names = "--file", required = true, description = "The credentials file.")
    Path file;

    @Option(names = "--user", required = true, description = "The user name.")
    String user;

    @Option(names = "--password-file",
        description = "A file whose first line is the password (never given on the command "
            + "line, where ps would show it).")
    Path passwordFile;

    @Override
    public Integer call() throws IOException {
      PasswordFileVerifier.addUser(file, user, password());
      System.out.printf("added user '%s' to %s%n", user, file);
      return 0;
    }

    private String password() throws IOException {
      if (passwordFile != null) {
        return Files.readAllLines(passwordFile, StandardCharsets.UTF_8).stream().findFirst()
            .orElse("");
      }
      Console console = System.console();
      if (console == null) {
        throw NyalaException.invalidArgument("no terminal to ask the password of user '%s' "
            + "on: pass --password-file", user);
      }
      char[] first = console.readPassword("password of %s: ", user);
      char[] again = console.readPassword("again: ");
      try {
        if (first == null || !Arrays.equals(first, again)) {
          throw NyalaException.invalidArgument("the two passwords of user '%s' differ", user);
        }
        return new String(first);
      } finally {
        if (first != null) {
          Arrays.fill(first, ' ');
        }
        if (again != null) {
          Arrays.fill(again, ' ');
        }
      }
    }
  }
}
