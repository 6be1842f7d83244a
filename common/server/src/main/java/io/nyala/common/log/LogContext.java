package io.nyala.common.log;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.logging.log4j.ThreadContext;

/**
 * Puts the server's name on every log line. Threads a server creates carry the name in the
 * Log4j thread context; threads made by libraries (Ratis) are recognised by a token of their
 * name, such as the server's Raft peer id, registered with {@link #registerAlias}.
 */
public final class LogContext {
  /** Thread-context key read by {@link ServerNameConverter}. */
  public static final String KEY = "server";

  private static final Map<String, String> ALIASES = new ConcurrentHashMap<>();

  private LogContext() {}

  /** Tags the current thread with a server's name. */
  public static void set(String serverName) {
    ThreadContext.put(KEY, serverName);
  }

  /**
   * Tags the current thread with {@code serverName}, or with nothing if it is null; returns the
   * tag it had, to be put back by a second call.
   */
  public static String swap(String serverName) {
    String before = ThreadContext.get(KEY);
    if (!Objects.equals(before, serverName)) {
      if (serverName == null) {
        ThreadContext.remove(KEY);
      } else {
        ThreadContext.put(KEY, serverName);
      }
    }
    return before;
  }

  public static void clear() {
    ThreadContext.remove(KEY);
  }

  /** Lines from threads whose name contains {@code token} are tagged with {@code serverName}. */
  public static void registerAlias(String token, String serverName) {
    ALIASES.put(token, serverName);
  }

  public static void unregisterAlias(String token) {
    ALIASES.remove(token);
  }

  /**
   * The server a line logged now on this thread belongs to: the one in this thread's context,
   * else the one whose registered alias (a Raft server id) {@code threadName} contains; null if
   * neither.
   */
  public static String resolve(String threadName) {
    String s = ThreadContext.get(KEY);
    if (s != null) {
      return s;
    }
    if (threadName != null) {
      for (Map.Entry<String, String> e : ALIASES.entrySet()) {
        if (threadName.contains(e.getKey())) {
          return e.getValue();
        }
      }
    }
    return null;
  }

  /** A daemon thread factory whose threads are named {@code <server>-<pool>-N} and tagged. */
  public static ThreadFactory threadFactory(String serverName, String pool) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(() -> {
        set(serverName);
        r.run();
      }, serverName + "-" + pool + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Routes java.util.logging (gRPC) into Log4j. Idempotent; {@code bin/nyala} also sets the
   * JUL log manager so that nothing is lost before this runs.
   */
  public static void installJulBridge() {
    if (java.util.logging.LogManager.getLogManager().getClass().getName()
        .startsWith("org.apache.logging.log4j")) {
      return; // JUL already is Log4j (bin/nyala sets java.util.logging.manager)
    }
    synchronized (LogContext.class) {
      if (!julBridged) {
        org.apache.logging.log4j.jul.Log4jBridgeHandler.install(true, null, true);
        julBridged = true;
      }
    }
  }

  private static boolean julBridged;
}
