package io.nyala.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.ContainerState;
import org.testcontainers.containers.DockerComposeContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * {@code docker/compose.yaml} as a user runs it, through the engine's docker-compose: three
 * masters and three tablet servers find each other by name; a client on the host creates a
 * table with three replicas through the published master ports, and the CLI inside the network
 * writes and counts rows (docs/docker.md).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ComposeIT {
  private static final List<String> SERVICES =
      List.of("master-1", "master-2", "master-3", "ts-1", "ts-2", "ts-3");

  @Test
  void theComposeClusterTakesATableAndRows() throws Exception {
    NyalaTestImage.assumeDocker();
    assumeTrue(hasCompose(), "no docker-compose on the PATH (docker/engine.sh installs it)");
    String image = NyalaTestImage.get().asCanonicalNameString();
    File file = NyalaTestImage.repoRoot().resolve("docker/compose.yaml").toFile();
    List<String> masters = new ArrayList<>();
    DockerComposeContainer<?> compose = new DockerComposeContainer<>(file)
        .withEnv("NYALA_IMAGE", image)
        .withEnv("NYALA_JAVA_OPTS", NyalaCluster.DEFAULT_JAVA_OPTIONS)
        .withStartupTimeout(Duration.ofMinutes(4))
        .withPull(false)
        .withRemoveVolumes(true);
    for (int i = 1; i <= 3; i++) {
      int port = ServerContainers.freeHostPort();
      compose.withEnv("NYALA_MASTER_" + i + "_PORT", String.valueOf(port));
      masters.add("127.0.0.1:" + port);
    }
    for (String s : SERVICES) {
      compose.withLogConsumer(s, new ServerLogConsumer(s))
          .waitingFor(s, Wait.forHealthcheck().withStartupTimeout(Duration.ofMinutes(4)));
    }
    try {
      compose.start();
      roundTrip(compose, String.join(",", masters));
    } finally {
      compose.stop();
    }
  }

  private static void roundTrip(DockerComposeContainer<?> compose, String masters)
      throws Exception {
    Schema schema = Schema.forTable(List.of(
        ColumnSchema.builder("id", Type.INT64).key(true).build()));
    try (NyalaClient client = NyalaClient.builder(masters).build()) {
      // Three replicas need all three tablet servers registered.
      await().atMost(Duration.ofMinutes(2)).ignoreExceptions().untilAsserted(() ->
          client.createTable("from_host", schema, new CreateTableOptions()
              .addHashPartitions(List.of("id"), 2).setNumReplicas(3)));
      assertThat(client.listTables()).contains("from_host");
    }
    ContainerState master = compose.getContainerByServiceName("master-1")
        .or(() -> compose.getContainerByServiceName("master-1_1")).orElseThrow();
    String inNetwork = "master-1:7051,master-2:7051,master-3:7051";
    ExecResult load = master.execInContainer(cli("perf", "loadgen", "--masters", inNetwork,
        "--table", "rows", "--rows", "1000", "--replicas", "3"));
    assertThat(load.getExitCode()).as("loadgen: %s", load.getStderr()).isZero();
    ExecResult count = master.execInContainer(cli("table", "count", "--masters", inNetwork,
        "rows"));
    assertThat(count.getExitCode()).as("count: %s", count.getStderr()).isZero();
    String[] lines = count.getStdout().strip().split("\n");
    assertThat(lines[lines.length - 1].strip()).isEqualTo("1000");
  }

  private static String[] cli(String... args) {
    List<String> cmd = new ArrayList<>(List.of("java", "-cp", "/opt/nyala/lib/*",
        "io.nyala.minicluster.cli.NyalaCommand"));
    cmd.addAll(List.of(args));
    return cmd.toArray(String[]::new);
  }

  private static boolean hasCompose() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (new File(dir, "docker-compose").canExecute()) {
        return true;
      }
    }
    return false;
  }
}
