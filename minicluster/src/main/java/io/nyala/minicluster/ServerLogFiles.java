package io.nyala.minicluster;

import io.nyala.common.log.LogContext;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * The log of each in-process server in a file of its own, {@code <data root>/<name>/server.log},
 * where a server run as a process writes its log too: a test with three tablet servers in one
 * JVM can read what ts-2 did without picking its lines out of the console. The console keeps
 * every line as before. A line belongs to the server named in its thread context, or the one
 * whose Raft id is in its thread's name (the {@code %server} of the log pattern); lines of no
 * server go to the console only.
 */
final class ServerLogFiles extends AbstractAppender {
  private static final String NAME = "nyala-server-files";
  private static final Map<String, OutputStream> FILES = new ConcurrentHashMap<>();
  private static ServerLogFiles installed;

  private ServerLogFiles(PatternLayout layout) {
    super(NAME, null, layout, true, Property.EMPTY_ARRAY);
  }

  /** From now on, lines of {@code server} are also appended to {@code file}. */
  static synchronized void open(String server, Path file) {
    install();
    try {
      Files.createDirectories(file.getParent());
      OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      OutputStream old = FILES.put(server, out);
      closeQuietly(old);
    } catch (IOException e) {
      // A test without its server's log file still runs; the console has every line.
      LogManager.getLogger(ServerLogFiles.class).warn("cannot open {} for {}'s log: {}", file,
          server, e.getMessage());
    }
  }

  /** Stops writing {@code server}'s lines to its file and closes it. */
  static void close(String server) {
    closeQuietly(FILES.remove(server));
  }

  private static void install() {
    if (installed != null) {
      return;
    }
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration cfg = ctx.getConfiguration();
    ServerLogFiles a = new ServerLogFiles(PatternLayout.newBuilder().withConfiguration(cfg)
        .withPattern("%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%server] %c{1} - %msg%n%throwable")
        .build());
    a.start();
    cfg.addAppender(a);
    cfg.getRootLogger().addAppender(a, null, null);
    ctx.updateLoggers();
    installed = a;
  }

  @Override
  public void append(LogEvent event) {
    String server = event.getContextData().getValue(LogContext.KEY);
    if (server == null) {
      server = LogContext.resolve(event.getThreadName());
    }
    OutputStream out = server == null ? null : FILES.get(server);
    if (out == null) {
      return;
    }
    byte[] line = getLayout().toByteArray(event);
    synchronized (out) {
      try {
        out.write(line);
        out.flush();
      } catch (IOException e) {
        // closed meanwhile (the server stopped): the console has the line
      }
    }
  }

  private static void closeQuietly(OutputStream out) {
    if (out == null) {
      return;
    }
    synchronized (out) {
      try {
        out.close();
      } catch (IOException e) {
        // nothing left to do
      }
    }
  }
}
