package io.nyala.minicluster;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs test classes that use {@link MiniClusterExtension} through the Jupiter engine, in an
 * execution of their own (so a shared cluster's root context ends with the run). Those classes
 * carry {@code @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")} so that they only run
 * from here, never on their own.
 */
final class ExtensionRuns {
  private static volatile boolean launching;

  private ExtensionRuns() {
  }

  /** Whether a test is running classes through {@link #run}. */
  static boolean launching() {
    return launching;
  }

  /** Runs the classes in one engine execution. */
  static synchronized EngineExecutionResults run(Class<?>... classes) {
    List<ClassSelector> selectors = new ArrayList<>();
    for (Class<?> c : classes) {
      selectors.add(selectClass(c));
    }
    launching = true;
    try {
      return EngineTestKit.engine("junit-jupiter")
          .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "false")
          .selectors(selectors.toArray(new ClassSelector[0]))
          .execute();
    } finally {
      launching = false;
    }
  }

  /** What failed in the run: tests and containers (a class whose beforeAll threw). */
  static List<Throwable> failures(EngineExecutionResults results) {
    List<Throwable> thrown = new ArrayList<>();
    results.allEvents().failed().stream()
        .map(e -> e.getRequiredPayload(TestExecutionResult.class).getThrowable())
        .forEach(t -> t.ifPresent(thrown::add));
    return thrown;
  }
}
