package io.nyala.minicluster.evidence;

import io.nyala.common.fs.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of a closed minicluster's data root, and with it every server's
 * {@code server.log}: deleted at once outside a test (the CLI, {@code local-cluster}); inside a
 * test run under {@link KeepClusterOnFailure}, deleted when the test (or test class) passes and
 * kept when it fails, with one line on stderr and in the log saying where
 * (docs/architecture.md, "Testing with the minicluster").
 *
 * <p>Scopes nest (a class, then each of its tests) and a root closed while one is open belongs
 * to the innermost. Tests of one JVM run one at a time (JUnit's default, which Nyala keeps), so
 * the scopes form one stack for the JVM rather than one per thread: a cluster closed by a pool
 * thread of the test still lands in the test's scope. Guarded by the class's lock.
 */
public final class DataRootDisposal {
  private static final Logger LOG = LoggerFactory.getLogger(DataRootDisposal.class);
  /** Open scopes, innermost first. Guarded by the class's lock. */
  private static final Deque<Scope> SCOPES = new ArrayDeque<>();
  /** Roots a failed test marked for keeping, with that test's name. Guarded by the lock. */
  private static final Map<Path, String> FAILED = new LinkedHashMap<>();

  private DataRootDisposal() {}

  /**
   * A cluster whose data was not to be kept closed: deletes {@code root} now, or hands it to the
   * innermost open scope, or keeps it if a failed test {@linkplain #keepFor marked} it.
   */
  public static void closed(Path root) {
    String failedTest;
    synchronized (DataRootDisposal.class) {
      failedTest = FAILED.remove(root);
      if (failedTest == null && !SCOPES.isEmpty()) {
        SCOPES.peek().roots.add(root);
        return;
      }
    }
    if (failedTest != null) {
      keep(root, failedTest);
    } else {
      AtomicFiles.deleteTree(root);
    }
  }

  /**
   * Marks the data root of a cluster that outlives the test (one per test class, closed when
   * the class ends) to be kept when it closes, because {@code test} failed on it. The first
   * failed test's name stays.
   */
  public static synchronized void keepFor(Path root, String test) {
    FAILED.putIfAbsent(root, test);
  }

  /** Opens a scope for a test or test class named {@code name}; {@link #end} closes it. */
  static synchronized Scope open(String name) {
    Scope s = new Scope(name);
    SCOPES.push(s);
    return s;
  }

  /**
   * Closes {@code scope}: the roots of the clusters closed in it are kept, under the name of
   * {@code failedTest}, when that is not null, else deleted.
   */
  static void end(Scope scope, String failedTest) {
    List<Path> roots;
    synchronized (DataRootDisposal.class) {
      SCOPES.remove(scope);
      roots = List.copyOf(scope.roots);
    }
    for (Path root : roots) {
      if (failedTest != null) {
        keep(root, failedTest);
      } else {
        AtomicFiles.deleteTree(root);
      }
    }
  }

  /**
   * Whether a closed cluster's data root is gone or waits for the end of the test (or class)
   * running now, which deletes it if that passes: what a test asserts after {@code close()}.
   */
  public static synchronized boolean deletedOrPending(Path root) {
    return !java.nio.file.Files.exists(root) || pending().contains(root);
  }

  /** The roots waiting for the innermost open scope's end; empty if none is open. */
  static synchronized List<Path> pending() {
    return SCOPES.isEmpty() ? List.of() : List.copyOf(SCOPES.peek().roots);
  }

  private static void keep(Path root, String test) {
    String line = "nyala: test " + test + " failed; cluster data and server logs kept in " + root
        + " (" + String.join(", ", serverLogs(root)) + ")";
    System.err.println(line);
    LOG.warn(line);
  }

  /** The server logs under {@code root}, relative to it, e.g. {@code ts-1/server.log}. */
  static List<String> serverLogs(Path root) {
    List<String> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(root)) {
      dirs.sorted().forEach(d -> {
        if (Files.isRegularFile(d.resolve("server.log"))) {
          out.add(root.relativize(d.resolve("server.log")).toString());
        }
      });
    } catch (IOException e) {
      // The line still names the root, which is what a reader needs first.
      out.add("cannot list the server logs: " + e.getMessage());
    }
    return out;
  }

  /** The roots closed while a test or class ran. Guarded by the class's lock. */
  static final class Scope {
    final String name;
    final List<Path> roots = new ArrayList<>();

    private Scope(String name) {
      this.name = name;
    }
  }
}
