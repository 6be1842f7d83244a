package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.client.RowResult;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.evidence.DataRootDisposal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * {@code @ExtendWith(MiniClusterExtension.class)}: one default cluster for the class, injected
 * into the constructor, {@code @BeforeAll}, {@code @BeforeEach} and test methods. The classes
 * nested here are run through {@link ExtensionRuns} by the tests, never on their own.
 */
@ExtendWith(MiniClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MiniClusterExtensionTest {
  static final Schema SCHEMA = Schema.forTable(List.of(
      ColumnSchema.builder("k", Type.INT64).key(true).build(),
      ColumnSchema.builder("v", Type.STRING).build()));

  private static MiniCluster fromBeforeAll;
  private final NyalaClient fromConstructor;
  private NyalaClient fromBeforeEach;

  MiniClusterExtensionTest(NyalaClient client) {
    this.fromConstructor = client;
  }

  @BeforeAll
  static void rememberCluster(MiniCluster cluster) {
    fromBeforeAll = cluster;
  }

  @BeforeEach
  void rememberClient(NyalaClient client) {
    fromBeforeEach = client;
  }

  @Test
  void injectsOneDefaultClusterAndOneClientEverywhere(MiniCluster cluster, NyalaClient client,
      AsyncNyalaClient async) {
    assertThat(cluster).isSameAs(fromBeforeAll);
    assertThat(cluster.numMasters()).isEqualTo(1);
    assertThat(cluster.numTabletServers()).isEqualTo(3);
    assertThat(client).isSameAs(fromConstructor).isSameAs(fromBeforeEach);
    assertThat(client.getMasterAddresses()).isEqualTo(cluster.masterHostPorts());
    assertThat(async).isSameAs(client.getAsyncClient());
    assertThat(cluster.trustedCaFile()).as("TLS and authentication by default").isNotNull();
    assertThat(cluster.credentials()).isNotNull();
  }

  @Test
  void writesAndReadsThroughTheInjectedClient(NyalaClient client) {
    NyalaTable table = client.createTable("sync_t", SCHEMA,
        new CreateTableOptions().addHashPartitions(List.of("k"), 2).setNumReplicas(3));
    writeAndRead(client.newSession(), table, client.newScannerBuilder(table).build());
  }

  @Test
  void writesAndReadsThroughTheInjectedAsyncClient(AsyncNyalaClient async) throws Exception {
    NyalaTable table = async.createTable("async_t", SCHEMA,
        new CreateTableOptions().setNumReplicas(1)).get(60, TimeUnit.SECONDS);
    writeAndRead(async.newSession(), table, async.newScannerBuilder(table).build());
  }

  static void writeAndRead(NyalaSession session, NyalaTable table, Iterable<RowResult> scan) {
    Operation insert = table.newInsert();
    insert.getRow().addLong("k", 42).addString("v", "forty-two");
    assertThat(session.apply(insert).hasRowError()).isFalse();
    session.close();
    List<String> rows = new ArrayList<>();
    for (RowResult row : scan) {
      rows.add(row.getLong("k") + "=" + row.getString("v"));
    }
    assertThat(rows).containsExactly("42=forty-two");
  }

  @Test
  void anInstanceRegisteredExtensionFailsEachTestAndSaysToMakeItStatic() {
    EngineExecutionResults results = ExtensionRuns.run(InstanceFieldMisuse.class);
    assertThat(results.testEvents().started().count()).isEqualTo(1);
    assertThat(ExtensionRuns.failures(results)).singleElement().satisfies(e -> assertThat(e)
        .isInstanceOf(ExtensionConfigurationException.class)
        .hasMessageContaining(InstanceFieldMisuse.class.getName())
        .hasMessageContaining("make the @RegisterExtension field static"));
  }

  @Test
  void theClusterAndItsClientAreClosedWhenTheClassEnds() {
    EngineExecutionResults results = ExtensionRuns.run(RecordsItsCluster.class);
    assertThat(ExtensionRuns.failures(results)).isEmpty();
    assertThat(results.testEvents().succeeded().count()).isEqualTo(1);
    MiniCluster cluster = RecordsItsCluster.cluster;
    assertThat(cluster.servers()).noneMatch(ServerInfo::running);
    // Its data root now belongs to this test's KeepClusterOnFailure scope, deleted when this
    // test passes (KeepClusterOnFailureTest checks that part).
    assertThat(DataRootDisposal.deletedOrPending(cluster.dataRoot()))
        .as("close() deletes the data").isTrue();
    assertThatThrownBy(() -> RecordsItsCluster.client.newSession())
        .as("the client is closed with the cluster").hasMessageContaining("closed");
  }

  // ---- classes run through ExtensionRuns ----------------------------------------------------

  /** The misuse: JUnit gives an instance field's extension per-method callbacks only. */
  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class InstanceFieldMisuse {
    @RegisterExtension
    final MiniClusterExtension cluster = new MiniClusterExtension();

    @Test
    void needsTheCluster(NyalaClient client) {
      client.listTables();
    }
  }

  /** Keeps its cluster and client so that the test can look at them after the class ended. */
  @EnabledIf("io.nyala.minicluster.ExtensionRuns#launching")
  static class RecordsItsCluster {
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
        new MiniClusterExtension(b -> b.numTabletServers(1));
    static MiniCluster cluster;
    static NyalaClient client;

    @Test
    void records(MiniCluster c, NyalaClient cl) {
      cluster = c;
      client = cl;
      assertThat(c).isSameAs(CLUSTER.cluster());
      assertThat(cl).isSameAs(CLUSTER.client());
    }
  }
}
