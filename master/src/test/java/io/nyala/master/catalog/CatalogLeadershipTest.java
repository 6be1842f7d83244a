package io.nyala.master.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.HostPort;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.env.Env;
import io.nyala.common.security.LogPayloads;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new catalog leader serves only once its barrier entry applied and its start-of-term work
 * ran; if that work fails, it tries again on the next poll instead of leading without serving.
 * A real one-master Ratis group on loopback.
 */
@Timeout(60)
class CatalogLeadershipTest {
  @TempDir
  Path dir;

  @Test
  void aFailedStartOfTermIsRetriedNotLeftHalfDone() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    HostPort raft = new HostPort("127.0.0.1", port);
    SysCatalog catalog = new SysCatalog(Env.plain(), LogPayloads.plain("sys-catalog"));
    AtomicInteger attempts = new AtomicInteger();
    CatalogLeadership leadership = new CatalogLeadership(catalog, () -> {
      if (attempts.incrementAndGet() == 1) {
        throw new IllegalStateException("the first start of the term fails");
      }
    });
    try (RaftServer server = RaftServer.newBuilder()
        .setServerId(SysCatalog.peer("m0", raft, raft).getId())
        .setProperties(RaftSettings.forServer(dir.resolve("raft").toFile(), raft, 300, 600,
            Map.of()))
        .setGroup(SysCatalog.initialGroup(List.of(SysCatalog.peer("m0", raft, raft))))
        .setStateMachineRegistry(catalog.registry())
        .setOption(RaftStorage.StartupOption.FORMAT).build()) {
      catalog.attach(server);
      server.start();
      await("the master serving as the catalog leader").atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50)).until(leadership::poll);
      assertThat(attempts).as("starts of the term: the failed one, then the one that served")
          .hasValue(2);
      assertThat(leadership.isReady()).isTrue();
      assertThat(catalog.read(CatalogState::clusterId)).isNotEmpty();
    }
  }
}
