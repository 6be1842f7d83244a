package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.NyalaClient;
import io.nyala.minicluster.NyalaCluster.Lifecycle;
import io.nyala.minicluster.evidence.DataRootDisposal;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * The lifecycles of {@link NyalaCluster} and {@link MiniClusterExtension#builder()}: which tests
 * get the same cluster, and that each is closed when its context ends. The classes nested here
 * record the clusters they were given and run through {@link ExtensionRuns}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class NyalaClusterLifecycleTest {
  /** Cluster each recording test saw, by "Class#method". */
  static final Map<String, MiniCluster> SEEN = new ConcurrentHashMap<>();

  static void record(String test, MiniCluster cluster) {
    SEEN.put(test, cluster);
  }

  private static void assertAllPassed(EngineExecutionResults results, int tests) {
    assertThat(ExtensionRuns.failures(results)).isEmpty();
    assertThat(results.testEvents().succeeded().count()).isEqualTo(tests);
  }

  private static void assertClosed(MiniCluster cluster) {
    assertThat(cluster.servers()).noneMatch(ServerInfo::running);
    assertThat(DataRootDisposal.deletedOrPending(cluster.dataRoot()))
        .as("close() deletes the data (when the test running it passes)").isTrue();
  }

  @Test
  void perMethodGivesEachTestAFreshClusterClosedWhenTheTestEnds() {
    SEEN.clear();
    assertAllPassed(ExtensionRuns.run(PerMethod.class), 2);
    MiniCluster a = SEEN.get("PerMethod#a");
    MiniCluster b = SEEN.get("PerMethod#b");
    assertThat(a).isNotNull().isNotSameAs(b);
    assertClosed(a);
    assertClosed(b);
  }

  @Test
  void perClassGivesTheClassOneClusterAndInjectsItEverywhere() {
    SEEN.clear();
    assertAllPassed(ExtensionRuns.run(PerClass.class), 2);
    assertThat(SEEN.get("PerClass#a")).isSameAs(SEEN.get("PerClass#b"))
        .isSameAs(SEEN.get("PerClass#beforeAll"));
    assertClosed(SEEN.get("PerClass#a"));
  }

  @Test
  void sharedReusesOneClusterAcrossClassesWithAnEqualConfigurationUntilTheRunEnds() {
    SEEN.clear();
    assertAllPassed(ExtensionRuns.run(SharedA.class, SharedB.class, SharedOtherFlags.class,
        SharedFromBuilder.class), 4);
    MiniCluster a = SEEN.get("SharedA#a");
    assertThat(SEEN.get("SharedB#b")).as("an equal configuration").isSameAs(a);
    assertThat(SEEN.get("SharedFromBuilder#b")).as("the builder's equal configuration")
        .isSameAs(a);
    assertThat(SEEN.get("SharedOtherFlags#c")).as("other flags").isNotSameAs(a);
    assertClosed(a);
    assertClosed(SEEN.get("SharedOtherFlags#c"));
  }

  @Test
  void aMethodAnnotationWithAnotherConfigurationGetsItsOwnCluster() {
    SEEN.clear();
    assertAllPassed(ExtensionRuns.run(MethodOverrides.class), 3);
    MiniCluster classCluster = SEEN.get("MethodOverrides#usesTheClass");
    assertThat(SEEN.get("MethodOverrides#equalAnnotation")).isSameAs(classCluster);
    assertThat(SEEN.get("MethodOverrides#ownFlags")).isNotSameAs(classCluster);
    assertClosed(SEEN.get("MethodOverrides#ownFlags"));
  }

  // ---- classes run through ExtensionRuns ------------------------------------------------------

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1, lifecycle = Lifecycle.PER_METHOD)
  static class PerMethod {
    private final MiniCluster fromConstructor;
    private MiniCluster fromBeforeEach;

    PerMethod(MiniCluster cluster) {
      this.fromConstructor = cluster;
    }

    @BeforeEach
    void remember(MiniCluster cluster) {
      fromBeforeEach = cluster;
    }

    @Test
    void a(MiniCluster cluster) {
      assertThat(cluster).isSameAs(fromConstructor).isSameAs(fromBeforeEach);
      record("PerMethod#a", cluster);
    }

    @Test
    void b(MiniCluster cluster) {
      assertThat(cluster).isSameAs(fromConstructor).isSameAs(fromBeforeEach);
      record("PerMethod#b", cluster);
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1)
  static class PerClass {
    @BeforeAll
    static void remember(MiniCluster cluster) {
      record("PerClass#beforeAll", cluster);
    }

    @Test
    void a(MiniCluster cluster, NyalaClient client, AsyncNyalaClient async) {
      assertThat(cluster.numTabletServers()).isEqualTo(1);
      assertThat(client.getMasterAddresses()).isEqualTo(cluster.masterHostPorts());
      assertThat(async).isSameAs(client.getAsyncClient());
      record("PerClass#a", cluster);
    }

    @Test
    void b(MiniCluster cluster) {
      record("PerClass#b", cluster);
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1, lifecycle = Lifecycle.SHARED)
  static class SharedA {
    @Test
    void a(MiniCluster cluster) {
      record("SharedA#a", cluster);
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1, lifecycle = Lifecycle.SHARED)
  static class SharedB {
    @Test
    void b(MiniCluster cluster) {
      record("SharedB#b", cluster);
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class SharedFromBuilder {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER = MiniClusterExtension.builder().tservers(1)
        .lifecycle(Lifecycle.SHARED).build();

    @Test
    void b() {
      record("SharedFromBuilder#b", CLUSTER.cluster());
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1, lifecycle = Lifecycle.SHARED,
      tserverFlags = "--heartbeat_interval_ms=250")
  static class SharedOtherFlags {
    @Test
    void c(MiniCluster cluster) {
      record("SharedOtherFlags#c", cluster);
    }
  }

  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  @NyalaCluster(tservers = 1)
  static class MethodOverrides {
    @Test
    void usesTheClass(MiniCluster cluster) {
      record("MethodOverrides#usesTheClass", cluster);
    }

    @Test
    @NyalaCluster(tservers = 1)
    void equalAnnotation(MiniCluster cluster) {
      record("MethodOverrides#equalAnnotation", cluster);
    }

    @Test
    @NyalaCluster(tservers = 1, tserverFlags = "--heartbeat_interval_ms=250", encryption = true)
    void ownFlags(MiniCluster cluster, NyalaClient client) {
      assertThat(Files.exists(cluster.clusterKeyFile())).as("encryption").isTrue();
      assertThat(client.getMasterAddresses()).isEqualTo(cluster.masterHostPorts());
      record("MethodOverrides#ownFlags", cluster);
    }
  }

}
