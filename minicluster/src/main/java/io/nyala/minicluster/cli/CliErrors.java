package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.BooleanSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How the {@code nyala} command line reports failures: one line {@code error: <what, with the
 * value>} on stderr and a non-zero exit; a stack trace only with {@code --verbose}. A usage
 * mistake (unknown option, bad value) adds one line pointing at the command's help, not the
 * whole usage, and exits {@value #USAGE_EXIT}.
 */
final class CliErrors {
  /** Exit status of a command that failed at run time. */
  static final int FAILURE_EXIT = 1;
  /** Exit status of a usage mistake, as picocli's own (and most tools'). */
  static final int USAGE_EXIT = 2;

  private CliErrors() {}

  /** Prints {@code error: <message>} (and the trace when {@code verbose} says so); exit 1. */
  static CommandLine.IExecutionExceptionHandler onFailure(BooleanSupplier verbose) {
    return (ex, cmd, parseResult) -> {
      PrintWriter err = cmd.getErr();
      err.println("error: " + oneLine(NyalaException.from(ex).detail()));
      if (verbose.getAsBoolean()) {
        ex.printStackTrace(err);
      }
      err.flush();
      return FAILURE_EXIT;
    };
  }

  /** Prints {@code error: <message>} and where the usage is; exit 2. */
  static CommandLine.IParameterExceptionHandler onUsageError(BooleanSupplier verbose) {
    return (ex, args) -> {
      CommandLine cmd = ex.getCommandLine();
      PrintWriter err = cmd.getErr();
      err.println("error: " + oneLine(ex.getMessage()));
      String hint = "see '" + cmd.getCommandSpec().qualifiedName() + " --help'";
      if (ex instanceof UnmatchedArgumentException u) {
        List<String> close = u.getSuggestions();
        if (!close.isEmpty()) {
          hint += " (did you mean " + String.join(" or ", close) + "?)";
        }
      }
      err.println(hint);
      if (verbose.getAsBoolean()) {
        ex.printStackTrace(err);
      }
      err.flush();
      return USAGE_EXIT;
    };
  }

  /**
   * Refuses a count or duration below {@code min} as a usage error that names the option and
   * the value, e.g. {@code --threads must be at least 1, got 0}.
   */
  static void requireAtLeast(CommandSpec spec, String option, long value, long min) {
    if (value < min) {
      throw new ParameterException(spec.commandLine(),
          String.format("%s must be at least %d, got %d", option, min, value));
    }
  }

  /**
   * A message on one line: gRPC statuses and HTTP errors carry headers and trailers on lines of
   * their own, which would read as separate errors.
   */
  static String oneLine(String message) {
    return String.valueOf(message).strip().replaceAll("\\s*\\R\\s*", "; ");
  }
}
