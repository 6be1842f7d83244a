package io.nyala.itests;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * Records every WARN-or-worse log event that carries an exception, from any server in this JVM,
 * so a test can assert that bad input never produced an uncaught or unexpected exception; and
 * every WARN-or-worse message, so a test can assert that the log says why.
 */
final class LogCapture implements AutoCloseable {
  private final List<String> events = new ArrayList<>();
  /** Every WARN-or-worse message, with or without an exception. */
  private final List<String> warnings = new ArrayList<>();
  private final AbstractAppender appender;

  LogCapture() {
    appender = new AbstractAppender("itest-capture", null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent e) {
        if (e.getLevel().isMoreSpecificThan(Level.WARN)) {
          synchronized (warnings) {
            warnings.add(e.getLevel() + " " + e.getLoggerName() + ": "
                + e.getMessage().getFormattedMessage());
          }
        }
        if (e.getLevel().isMoreSpecificThan(Level.WARN) && e.getThrown() != null) {
          synchronized (events) {
            events.add(e.getLevel() + " " + e.getLoggerName() + ": "
                + e.getMessage().getFormattedMessage() + " / " + e.getThrown());
          }
        }
      }
    };
    appender.start();
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().getRootLogger().addAppender(appender, Level.WARN, null);
    ctx.updateLoggers();
  }

  List<String> exceptions() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** Every WARN-or-worse message so far ("LEVEL logger: message"). */
  List<String> warnings() {
    synchronized (warnings) {
      return List.copyOf(warnings);
    }
  }

  @Override
  public void close() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().getRootLogger().removeAppender(appender.getName());
    ctx.updateLoggers();
    appender.stop();
  }
}
