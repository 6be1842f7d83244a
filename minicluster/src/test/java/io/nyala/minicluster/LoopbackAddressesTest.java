package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two address layouts: localhost (127.0.0.1, default ports + 100 per server) only when
 * every port it needs is free, else private 127.a.b.c addresses; a data root keeps its layout.
 * The "needed" ports here are ephemeral ones the test holds or frees, never fixed ports.
 */
class LoopbackAddressesTest {
  @TempDir Path root;

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      return s.getLocalPort();
    }
  }

  @Test
  void localhostWhenEveryPortIsFreeAndKeptAcrossRestarts() throws IOException {
    LoopbackAddresses.Plan plan = LoopbackAddresses.planFor(root, 7051, true,
        List.of(freePort(), freePort()));
    assertThat(plan.localhost()).isTrue();
    assertThat(plan.host(ServerRole.MASTER, 0)).isEqualTo("127.0.0.1");
    assertThat(plan.host(ServerRole.TABLET_SERVER, 2)).isEqualTo("127.0.0.1");
    assertThat(plan.port(7050, 0)).isEqualTo(7050);
    assertThat(plan.port(7050, 2)).isEqualTo(7250);
    assertThat(plan.port(8051, 1)).isEqualTo(8151);
    // A restart that would not choose it (or whose ports are now busy) keeps the layout.
    assertThat(LoopbackAddresses.planFor(root, 7051, false, List.of()).localhost()).isTrue();
  }

  @Test
  void aBusyPortMeansPrivateAddressesOnTheDefaultPorts() throws IOException {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress("127.0.0.1", 0));
      LoopbackAddresses.Plan plan = LoopbackAddresses.planFor(root, 7051, true,
          List.of(freePort(), busy.getLocalPort()));
      assertThat(plan.localhost()).isFalse();
      assertThat(plan.host(ServerRole.MASTER, 0)).matches("127\\.\\d+\\.\\d+\\.1")
          .isNotEqualTo("127.0.0.1");
      assertThat(plan.host(ServerRole.TABLET_SERVER, 0)).endsWith(".11");
      assertThat(plan.port(7050, 2)).isEqualTo(7050);
      assertThat(LoopbackAddresses.planFor(root, 7051, true, List.of()).prefix())
          .isEqualTo(plan.prefix());
    }
  }
}
