package io.nyala.minicluster.evidence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.nyala.common.fs.AtomicFiles;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.MiniClusterExtension;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * Runs test classes that fail or pass on purpose through the engine test kit, with
 * {@link KeepClusterOnFailure} registered as in every Nyala test JVM, and looks at what their
 * clusters left behind and what was printed.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KeepClusterOnFailureTest {
  @Test
  void aFailedTestKeepsItsClustersDataAndLogsAndSaysWhere() {
    run(FailsWithItsCluster.class).assertStatistics(s -> s.started(1).failed(1));
    Path root = FailsWithItsCluster.root;
    try {
      assertThat(root.resolve("master-1/server.log")).isNotEmptyFile();
      assertThat(root.resolve("ts-1/server.log")).isNotEmptyFile();
      assertThat(lastErr).contains("nyala: test FailsWithItsCluster#fails failed; cluster data "
          + "and server logs kept in " + root + " (master-1/server.log, ts-1/server.log)");
    } finally {
      AtomicFiles.deleteTree(root);
    }
  }

  @Test
  void aPassedTestLeavesNothing() {
    run(PassesWithItsCluster.class).assertStatistics(s -> s.started(1).succeeded(1));
    assertThat(PassesWithItsCluster.root).doesNotExist();
    assertThat(lastErr).doesNotContain("kept in");
  }

  @Test
  void aClusterClosedInAfterAllIsKeptWhenATestOfTheClassFailed() {
    run(ExtensionClusterFails.class).assertStatistics(s -> s.started(2).failed(1));
    Path root = ExtensionClusterFails.root;
    try {
      assertThat(root.resolve("master-1/server.log")).isNotEmptyFile();
      assertThat(lastErr).contains("nyala: test ExtensionClusterFails#fails failed; cluster "
          + "data and server logs kept in " + root + " (master-1/server.log)");
    } finally {
      AtomicFiles.deleteTree(root);
    }
  }

  @Test
  void theExtensionsClusterOfAPassingClassIsDeleted() {
    run(ExtensionClusterPasses.class).assertStatistics(s -> s.started(1).succeeded(1));
    // It closed after its class's scope ended, inside this test's: deleted when this one ends.
    assertThat(DataRootDisposal.pending()).contains(ExtensionClusterPasses.root);
    assertThat(lastErr).doesNotContain("kept in");
  }

  // ---- classes run through the engine test kit ------------------------------------------------

  private static volatile boolean launching;
  /** What the last run printed on stderr. */
  private static volatile String lastErr = "";

  /** Enables the nested classes only while a test of this class runs them. */
  static boolean launching() {
    return launching;
  }

  private static synchronized Events run(Class<?> testClass) {
    PrintStream oldErr = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setErr(new PrintStream(new TeeStream(oldErr, err), true, StandardCharsets.UTF_8));
    launching = true;
    try {
      return EngineTestKit.engine("junit-jupiter").selectors(selectClass(testClass))
          .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
          .execute().testEvents();
    } finally {
      launching = false;
      System.setErr(oldErr);
      lastErr = err.toString(StandardCharsets.UTF_8);
    }
  }

  /** Writes to both streams: the console keeps what the test prints. */
  private static final class TeeStream extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    TeeStream(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }
  }

  @EnabledIf("io.nyala.minicluster.evidence.KeepClusterOnFailureTest#launching")
  static class FailsWithItsCluster {
    static Path root;

    @Test
    void fails() {
      try (MiniCluster c = MiniCluster.builder().numTabletServers(1).build()) {
        root = c.dataRoot();
        fail("on purpose");
      }
    }
  }

  @EnabledIf("io.nyala.minicluster.evidence.KeepClusterOnFailureTest#launching")
  static class PassesWithItsCluster {
    static Path root;

    @Test
    void passes() {
      try (MiniCluster c = MiniCluster.builder().numTabletServers(0).build()) {
        root = c.dataRoot();
        assertThat(Files.isDirectory(root)).isTrue();
      }
    }
  }

  @EnabledIf("io.nyala.minicluster.evidence.KeepClusterOnFailureTest#launching")
  static class ExtensionClusterFails {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
        new MiniClusterExtension(b -> b.numTabletServers(0));
    static Path root;

    @Test
    void passes() {
      root = CLUSTER.cluster().dataRoot();
    }

    @Test
    void fails() {
      fail("on purpose");
    }
  }

  @EnabledIf("io.nyala.minicluster.evidence.KeepClusterOnFailureTest#launching")
  static class ExtensionClusterPasses {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
        new MiniClusterExtension(b -> b.numTabletServers(0));
    static Path root;

    @Test
    void passes() {
      root = CLUSTER.cluster().dataRoot();
    }
  }
}
