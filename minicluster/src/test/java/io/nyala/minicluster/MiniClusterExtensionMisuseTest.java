package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.minicluster.NyalaCluster.Lifecycle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each misuse of {@link MiniClusterExtension} and {@link NyalaCluster} fails with a message that
 * names the test class and says what to do. The misused classes nested here run through
 * {@link ExtensionRuns}; most fail before any server starts.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MiniClusterExtensionMisuseTest {
  private static Throwable onlyFailure(Class<?> testClass) {
    List<Throwable> failures = ExtensionRuns.failures(ExtensionRuns.run(testClass));
    assertThat(failures).hasSize(1);
    return failures.get(0);
  }

  @Test
  void anInstanceFieldForAPerClassClusterSaysToMakeItStatic() {
    assertThat(onlyFailure(InstanceField.class))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining(InstanceField.class.getName())
        .hasMessageContaining("field cluster")
        .hasMessageContaining("make the @RegisterExtension field static");
  }

  @Test
  void anInstanceFieldForAPerMethodClusterIsFine() {
    assertThat(ExtensionRuns.failures(ExtensionRuns.run(InstanceFieldPerMethod.class)))
        .isEmpty();
  }

  @Test
  void aFieldAndAnAnnotationConflict() {
    assertThat(onlyFailure(FieldAndAnnotation.class))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining("conflicting cluster declarations for "
            + FieldAndAnnotation.class.getName())
        .hasMessageContaining(FieldAndAnnotation.class.getName() + ".CLUSTER")
        .hasMessageContaining("FieldAndAnnotation#test");
  }

  @Test
  void anUnsupportedNyalaParameterNamesWhatCanBeInjected() {
    assertThat(onlyFailure(UnsupportedParameter.class))
        .isInstanceOf(ParameterResolutionException.class)
        .hasMessageContaining(NyalaSession.class.getName())
        .hasMessageContaining(UnsupportedParameter.class.getName())
        .hasMessageContaining("it injects MiniCluster, NyalaClient and AsyncNyalaClient");
  }

  @Test
  void numbersTheBuilderRefusesFailBeforeAnyServerStarts() {
    assertThat(onlyFailure(NoMaster.class))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining("@NyalaCluster on " + NoMaster.class.getName())
        .hasMessageContaining("masters = 0: a cluster needs at least 1 master");
    assertThat(onlyFailure(TooManyTabletServers.class))
        .hasMessageContaining("@NyalaCluster on " + TooManyTabletServers.class.getName()
            + "#test")
        .hasMessageContaining("tservers = 241: out of range 1..240");
    assertThat(onlyFailure(BuilderOutOfRange.class))
        .hasMessageContaining("MiniClusterExtension registered in "
            + BuilderOutOfRange.class.getName())
        .hasMessageContaining("tservers = 0: out of range 1..240");
  }

  @Test
  void aFlagWithoutDashesIsRefused() {
    assertThat(onlyFailure(BadFlag.class))
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining(BadFlag.class.getName())
        .hasMessageContaining("tserverFlags has \"heartbeat_interval_ms=300\"");
  }

  @Test
  void aPerMethodClusterCannotBeInjectedIntoBeforeAll() {
    assertThat(onlyFailure(PerMethodInBeforeAll.class))
        .hasMessageContaining("a PER_METHOD cluster for "
            + PerMethodInBeforeAll.class.getName() + " cannot be injected before its tests");
  }

  // ---- misused classes run through ExtensionRuns ----------------------------------------------

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class InstanceField {
    @RegisterExtension
    final MiniClusterExtension cluster = MiniClusterExtension.builder().tservers(1).build();

    @Test
    void test(NyalaClient client) {
      client.listTables();
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class InstanceFieldPerMethod {
    @RegisterExtension
    final MiniClusterExtension cluster = MiniClusterExtension.builder().tservers(1)
        .lifecycle(Lifecycle.PER_METHOD).build();

    @Test
    void test(MiniCluster c) {
      assertThat(c).isSameAs(cluster.cluster());
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class FieldAndAnnotation {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusterExtension.builder().tservers(1)
        .build();

    @Test
    @NyalaCluster(tservers = 1)
    void test(MiniCluster cluster) {
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1)
  static class UnsupportedParameter {
    @Test
    void test(NyalaSession session) {
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(masters = 0)
  static class NoMaster {
    @Test
    void test(MiniCluster cluster) {
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class TooManyTabletServers {
    @Test
    @NyalaCluster(tservers = 241)
    void test(MiniCluster cluster) {
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class BuilderOutOfRange {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusterExtension.builder().tservers(0)
        .build();

    @Test
    void test() {
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1, tserverFlags = "heartbeat_interval_ms=300")
  static class BadFlag {
    @Test
    void test() {
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1, lifecycle = Lifecycle.PER_METHOD)
  static class PerMethodInBeforeAll {
    @BeforeAll
    static void before(MiniCluster cluster) {
    }

    @Test
    void test() {
    }
  }
}
