package io.nyala.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * Runs a cluster in Docker and drives it with the CLI inside the network. Skipped (by
 * Testcontainers) when no Docker engine is present, as on the build machines of this project.
 */
@Testcontainers(disabledWithoutDocker = true)
class NyalaContainerClusterTest {

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void loadgenAndCountInsideTheNetwork() throws Exception {
    Path root = Path.of("..").toAbsolutePath().normalize();
    try (NyalaContainerCluster c =
        new NyalaContainerCluster(NyalaContainerCluster.localImage(root), 3)) {
      c.start();
      HttpResponse<String> health = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(c.masterWebUrl() + "/healthz")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      c.execInMaster("perf", "loadgen", "--masters", "master-1:7051", "--table", "t",
          "--rows", "1000", "--replicas", "3");
      String count = c.execInMaster("table", "count", "--masters", "master-1:7051", "t");
      String[] lines = count.strip().split("\n");
      assertThat(lines[lines.length - 1]).isEqualTo("1000");
    }
  }
}
