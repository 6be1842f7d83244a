package io.nyala.minicluster.evidence;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that keeps the data root and server logs of every minicluster closed during
 * a test that fails, and deletes them, as {@code MiniCluster.close()} does outside tests, when
 * it passes (docs/architecture.md, "Testing with the minicluster").
 *
 * <p>{@code close()} of a cluster made in a try-with-resources block runs before JUnit sees the
 * test's exception, so it cannot decide by itself: under this extension it hands its data root
 * to the running test, and this extension's after-callback deletes it or keeps it and prints
 * where. A cluster closed in {@code @AfterAll} belongs to its class, kept if any test of the
 * class (or the class itself) failed. The Nyala test modules register it for every test through
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} and
 * {@code junit.jupiter.extensions.autodetection.enabled=true}; elsewhere declare it:
 *
 * <pre>{@code
 * @ExtendWith(KeepClusterOnFailure.class)
 * class MyIT {
 *   @Test void writes() {
 *     try (MiniCluster c = MiniCluster.builder().build()) { ... }  // kept if this fails
 *   }
 * }
 * }</pre>
 */
public final class KeepClusterOnFailure
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(KeepClusterOnFailure.class);

  /** Opens the class's scope: clusters closed in its {@code @BeforeAll}/{@code @AfterAll}. */
  @Override
  public void beforeAll(ExtensionContext context) {
    open(context);
  }

  /** Keeps the class's clusters if the class or any of its tests failed, else deletes them. */
  @Override
  public void afterAll(ExtensionContext context) {
    end(context);
  }

  /** Opens the test's scope: clusters closed while it runs. */
  @Override
  public void beforeEach(ExtensionContext context) {
    open(context);
  }

  /** Keeps the test's clusters if it failed (and marks its classes failed), else deletes them. */
  @Override
  public void afterEach(ExtensionContext context) {
    end(context);
  }

  /**
   * For a cluster that outlives the test, such as one per test class: if the test or class of
   * {@code context} failed, the cluster's {@code dataRoot} is kept when the cluster closes.
   */
  public static void keepIfFailed(ExtensionContext context, Path dataRoot) {
    if (context.getExecutionException().isPresent()) {
      DataRootDisposal.keepFor(dataRoot, testName(context));
    }
  }

  /** {@code FooIT#bar} for a test, {@code FooIT} for a class. */
  static String testName(ExtensionContext context) {
    String cls = context.getTestClass().map(Class::getSimpleName)
        .orElse(context.getDisplayName());
    return context.getTestMethod().map(m -> cls + "#" + m.getName()).orElse(cls);
  }

  private static void open(ExtensionContext context) {
    Outcome o = new Outcome(DataRootDisposal.open(testName(context)));
    context.getStore(NAMESPACE).put(context.getUniqueId(), o);
  }

  private static void end(ExtensionContext context) {
    Outcome o = context.getStore(NAMESPACE).remove(context.getUniqueId(), Outcome.class);
    if (o == null) {
      return;
    }
    if (context.getExecutionException().isPresent() && o.failedTest == null) {
      o.failedTest = testName(context);
    }
    if (o.failedTest != null) {
      markEnclosing(context, o.failedTest);
    }
    DataRootDisposal.end(o.scope, o.failedTest);
  }

  /** A failed test fails the scopes of its classes too: their clusters saw it happen. */
  private static void markEnclosing(ExtensionContext context, String failedTest) {
    Optional<ExtensionContext> c = context.getParent();
    while (c.isPresent()) {
      ExtensionContext p = c.get();
      Outcome o = p.getStore(NAMESPACE).get(p.getUniqueId(), Outcome.class);
      if (o != null && o.failedTest == null) {
        o.failedTest = failedTest;
      }
      c = p.getParent();
    }
  }

  /** A scope and the first test that failed in it. Used by the test's thread only. */
  private static final class Outcome {
    final DataRootDisposal.Scope scope;
    volatile String failedTest;

    Outcome(DataRootDisposal.Scope scope) {
      this.scope = scope;
    }
  }
}
