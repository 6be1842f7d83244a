package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Waits, TTLs, deadlines and liveness run on a monotonic clock, never the wall clock, so a wall
 * step of minutes changes nothing (docs/data-safety.md, "Time"). The wall clock is read only by
 * the listed places, each of which shows a time to humans or persists a timestamp; anything else
 * that reads it fails this test, in every module's main code.
 */
@Timeout(30)
class WallClockUseTest {
  private static final Pattern WALL = Pattern.compile(
      "currentTimeMillis\\(|Instant\\.now\\(|Clock\\.systemUTC\\(|Clock\\.systemDefaultZone\\("
          + "|new Date\\(|LocalDateTime\\.now\\(|ZonedDateTime\\.now\\(");

  /** File (relative to the repository) → why it may read the wall clock. */
  private static final Map<String, String> ALLOWED = Map.ofEntries(
      Map.entry("common/server/src/main/java/io/nyala/common/server/ServerBase.java",
          "start time, shown on status pages; whether its own certificate is within its X.509 "
              + "validity (wall-clock times)"),
      Map.entry("common/server/src/main/java/io/nyala/common/fs/ServerFs.java",
          "format stamp and created_time_millis persisted in the instance file"),
      Map.entry("master/src/main/java/io/nyala/master/catalog/NewTableEntries.java",
          "created_time_millis persisted in the table's catalog entry"),
      Map.entry("tserver/src/main/java/io/nyala/tserver/replica/ReplicaCreator.java",
          "created_time_millis persisted in the tablet metadata"),
      Map.entry("tserver/src/main/java/io/nyala/tserver/replica/ReplicaHibernator.java",
          "hibernated_time_millis persisted in the tablet metadata"),
      Map.entry("tserver/src/main/java/io/nyala/tserver/fs/log/LogBlockManager.java",
          "LBM record timestamps, persisted"),
      Map.entry("minicluster/src/main/java/io/nyala/minicluster/cli/LoadgenWriter.java",
          "timestamps written as row values"),
      Map.entry("common/server/src/main/java/io/nyala/common/security/tls/CertFiles.java",
          "certificate validity: X.509 notBefore/notAfter are wall-clock times"),
      Map.entry("common/server/src/main/java/io/nyala/common/security/tls/WireTls.java",
          "seconds until its certificate's X.509 notAfter (a wall-clock time), as a metric"),
      Map.entry("master/src/main/java/io/nyala/master/MasterServer.java",
          "the internal CA's clock: X.509 validity of the certificates it issues is wall-clock "
              + "time"),
      Map.entry("common/server/src/main/java/io/nyala/common/security/cert/"
              + "CertificateRenewal.java",
          "when its certificate is due for renewal or expired: X.509 validity is wall-clock "
              + "time (its waits run on the pool's monotonic clock, an hour at most)"));

  @Test
  void onlyHumanFacingOrPersistedTimesReadTheWallClock() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    List<String> offenders = new ArrayList<>();
    for (String module : List.of("common/wire", "common/server", "master", "tserver", "client",
        "minicluster")) {
      Path main = root.resolve(module).resolve("src/main/java");
      assertThat(main).as("module sources").isDirectory();
      try (Stream<Path> files = Files.walk(main)) {
        files.filter(p -> p.toString().endsWith(".java")).forEach(p -> {
          String rel = root.relativize(p).toString().replace('\\', '/');
          if (!ALLOWED.containsKey(rel) && WALL.matcher(read(p)).find()) {
            offenders.add(rel);
          }
        });
      }
    }
    assertThat(offenders).as("main code reading the wall clock for something other than a "
        + "shown or persisted time (use System.nanoTime or an injected nano clock)").isEmpty();
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
