package io.nyala.minicluster.dense;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The /proc figures of this very process. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ProcessStatsTest {
  private static final long SELF = ProcessHandle.current().pid();

  @Test
  void readsThreadsRssFdsAndCpuOfThisProcess() throws Exception {
    ProcessStats before = ProcessStats.of(SELF);
    assertThat(before.rssBytes()).isGreaterThan(1 << 20);
    assertThat(before.openFds()).isGreaterThan(2);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch started = new CountDownLatch(1);
    Thread t = new Thread(() -> {
      started.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    t.start();
    started.await();
    try {
      // main, the started thread and the JVM's own: never fewer than the two of ours.
      assertThat(ProcessStats.of(SELF).threads()).isGreaterThanOrEqualTo(2);
    } finally {
      release.countDown();
      t.join();
    }
    // Spin for a while: the CPU ticks of this process must grow.
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    long x = 0;
    while (System.nanoTime() < until) {
      x += System.nanoTime() % 7;
    }
    assertThat(x).isNotNegative();
    assertThat(ProcessStats.of(SELF).cpuTicks()).isGreaterThan(before.cpuTicks());
  }

  @Test
  void aMissingProcessIsAnIoErrorNamingIt() {
    assertThatThrownBy(() -> ProcessStats.of(Integer.MAX_VALUE))
        .isInstanceOf(NyalaException.class).hasMessageContaining(
            "process " + Integer.MAX_VALUE);
  }
}
