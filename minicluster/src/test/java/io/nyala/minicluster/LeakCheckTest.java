package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link MiniCluster#close()} fails, naming the leak, when a server left something behind. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LeakCheckTest {
  @Test
  void aThreadNamedForAServerThatDoesNotEndFailsClose() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Thread leaked = new Thread(() -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "master-1-leaky-1");
    MiniCluster c = MiniCluster.builder().numTabletServers(0).build();
    leaked.start();
    try {
      assertThatThrownBy(c::close).hasMessageContaining("leaked after close()")
          .hasMessageContaining("thread 'master-1-leaky-1' at ")
          .hasMessageContaining("CountDownLatch.await");
    } finally {
      release.countDown();
      leaked.join();
    }
  }

  @Test
  void aPortOfTheClusterStillListeningFailsClose() throws Exception {
    MiniCluster c = MiniCluster.builder().numTabletServers(0).build();
    ServerInfo master = c.master(0);
    c.stopMaster(0);
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(master.rpcAddress().host(), master.rpcAddress().port()));
      assertThatThrownBy(c::close).hasMessageContaining("leaked after close()")
          .hasMessageContaining("port " + master.rpcAddress() + " of master-1 is still bound");
    }
  }
}
