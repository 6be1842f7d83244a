package io.nyala.docker;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaSession;
import io.nyala.client.NyalaTable;
import io.nyala.client.Operation;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.testcontainers.containers.ContainerLaunchException;

/**
 * The cluster-wide part of the wait: each container is already healthy (its {@code /healthz});
 * this waits until the leader master counts every tablet server live, then creates a table,
 * writes a row and drops it, so that a started cluster takes writes at once.
 */
final class ClusterReadiness {
  static final String PROBE_TABLE = "nyala_cluster_ready_probe";
  private static final Duration POLL = Duration.ofMillis(250);

  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(2)).build();

  /** The value of a master's gauge from its {@code /metrics} page, or empty if unreadable. */
  OptionalDouble gauge(String webUrl, String name) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(webUrl + "/metrics"))
          .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
      Matcher m = Pattern.compile("(?m)^(?:\\w+_)?" + name + "(?:\\{[^}]*\\})? (\\S+)$")
          .matcher(r.body());
      return r.statusCode() == 200 && m.find()
          ? OptionalDouble.of(Double.parseDouble(m.group(1))) : OptionalDouble.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalDouble.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalDouble.empty();
    }
  }

  /** Index of the ready catalog leader among {@code masterWebUrls}, or -1 if none now. */
  int leader(List<String> masterWebUrls) {
    for (int i = 0; i < masterWebUrls.size(); i++) {
      if (gauge(masterWebUrls.get(i), "is_leader").orElse(0) == 1) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Returns once a leader counts {@code numTservers} live tablet servers and a probe table took
   * a write.
   *
   * @throws ContainerLaunchException naming what was still missing at {@code timeout}
   */
  void await(List<String> masterWebUrls, int numTservers, NyalaClient client,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String missing = "a leader master";
    while (System.nanoTime() < deadline) {
      int leader = leader(masterWebUrls);
      if (leader >= 0) {
        double live = gauge(masterWebUrls.get(leader), "tservers_live").orElse(0);
        missing = "the leader master counts " + (int) live + " of " + numTservers
            + " tablet servers live";
        if (live >= numTservers) {
          probe(client, Math.min(numTservers, 3));
          return;
        }
      }
      pause();
    }
    throw new ContainerLaunchException("Nyala cluster not ready after " + timeout + ": "
        + missing);
  }

  private static void probe(NyalaClient client, int replicas) {
    Schema schema = Schema.forTable(List.of(
        ColumnSchema.builder("k", Type.INT64).key(true).build()));
    if (client.tableExists(PROBE_TABLE)) {
      client.deleteTable(PROBE_TABLE);
    }
    NyalaTable t = client.createTable(PROBE_TABLE, schema,
        new CreateTableOptions().addHashPartitions(List.of("k"), 2)
            .setNumReplicas(replicas % 2 == 0 ? replicas - 1 : replicas));
    try (NyalaSession session = client.newSession()) {
      Operation insert = t.newInsert();
      insert.getRow().addLong("k", 1);
      session.apply(insert);
    }
    client.deleteTable(PROBE_TABLE);
  }

  private static void pause() {
    try {
      Thread.sleep(POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ContainerLaunchException("interrupted while waiting for the Nyala cluster");
    }
  }
}
