package io.nyala.minicluster.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A {@code nyala} command run in this JVM: its exit status and what it printed. */
record CliRun(int status, String out, String err) {
  /** Runs the command line with stdout and stderr captured; callers must not run two at once. */
  static synchronized CliRun nyala(String... args) {
    PrintStream old = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int status = NyalaCommand.run(args);
      return new CliRun(status, buf.toString(StandardCharsets.UTF_8),
          err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
      System.setErr(oldErr);
    }
  }
}
