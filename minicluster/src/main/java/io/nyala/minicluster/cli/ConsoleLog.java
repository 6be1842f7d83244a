package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.FileAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.filter.AbstractFilter;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * The console of {@code nyala local-cluster}: the servers' full log goes to a file in the data
 * dir, and the terminal shows the command's own summary plus warnings and errors only (a
 * thousand INFO lines about Raft groups are no use to someone trying the cluster out). While
 * the cluster runs, Ratis' own warnings stay in the file too: they are about single Raft
 * groups (a candidate that lost an election, a follower that fell behind) and the system
 * handles them; Nyala's warnings and everyone's errors are shown. While
 * the cluster stops, only errors reach the terminal: closing Raft groups interrupts their
 * appenders and cancels their streams on purpose, which Ratis reports as warnings (and, for a
 * peer's call that reaches a group already closing, as an error: {@link StoppingErrors}), and
 * a clean stop must not look like a crash. Everything stays in the file.
 */
final class ConsoleLog {
  private static final String CONSOLE = "console";
  private static final String FILE = "local-cluster-log";

  private ConsoleLog() {}

  /**
   * Sends every event the loggers pass to {@code file} (appended to), and only WARN and worse
   * to the console.
   */
  static void toFile(Path file) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
    } catch (java.io.IOException e) {
      throw NyalaException.ioError("cannot create the directory of " + file + ": "
          + e.getMessage(), e);
    }
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration cfg = ctx.getConfiguration();
    Appender fileAppender = FileAppender.newBuilder().setName(FILE)
        .withFileName(file.toString()).withAppend(true).setConfiguration(cfg)
        .setLayout(PatternLayout.newBuilder().withConfiguration(cfg)
            .withPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%server] %c{1} - %msg%n"
                + "%throwable").build())
        .build();
    fileAppender.start();
    cfg.addAppender(fileAppender);
    LoggerConfig root = cfg.getRootLogger();
    root.addAppender(fileAppender, null, null);
    consoleAt(cfg, Level.WARN, new NyalaWarnings());
    ctx.updateLoggers();
  }

  /**
   * From now on only errors reach the console (for a clean stop), and not those Ratis logs
   * because the stop closes a group while a peer still calls it; the file keeps the rest.
   */
  static void quiet() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    consoleAt(ctx.getConfiguration(), Level.ERROR, new StoppingErrors());
    ctx.updateLoggers();
  }

  private static void consoleAt(Configuration cfg, Level level, Filter filter) {
    Appender console = cfg.getAppender(CONSOLE);
    if (console == null) {
      return; // a configuration of the user's own (-Dlog4j2.configurationFile): left alone
    }
    LoggerConfig root = cfg.getRootLogger();
    root.removeAppender(CONSOLE);
    root.addAppender(console, level, filter);
  }

  /**
   * While the cluster stops: errors, except Ratis' reports of a call that reached a group the
   * stop is closing (a heartbeat from a peer that has not stopped yet answered "not in
   * [STARTING, RUNNING]: current state is CLOSING", or a closed server's refusal).
   */
  static final class StoppingErrors extends AbstractFilter {
    /** Ratis' exceptions for a call to a closing or closed group or server. */
    private static final Set<String> CLOSING = Set.of(
        "org.apache.ratis.protocol.exceptions.ServerNotReadyException",
        "org.apache.ratis.protocol.exceptions.AlreadyClosedException");

    StoppingErrors() {
      super(Result.NEUTRAL, Result.DENY);
    }

    @Override
    public Result filter(LogEvent event) {
      return shown(event.getLoggerName(), event.getThrown()) ? Result.NEUTRAL : Result.DENY;
    }

    static boolean shown(String logger, Throwable thrown) {
      if (logger == null || !logger.startsWith("org.apache.ratis.")) {
        return true;
      }
      for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
        if (CLOSING.contains(t.getClass().getName())) {
          return false;
        }
      }
      return true;
    }
  }

  /** Errors from anyone; warnings from Nyala's own loggers only. */
  static final class NyalaWarnings extends AbstractFilter {
    NyalaWarnings() {
      super(Result.NEUTRAL, Result.DENY);
    }

    @Override
    public Result filter(LogEvent event) {
      return shown(event.getLevel(), event.getLoggerName()) ? Result.NEUTRAL : Result.DENY;
    }

    static boolean shown(Level level, String logger) {
      return level.isMoreSpecificThan(Level.ERROR)
          || (level.isMoreSpecificThan(Level.WARN) && logger != null
              && logger.startsWith("io.nyala."));
    }
  }
}
