package io.nyala.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class BackoffTest {
  @Test
  void delaysDoubleWithJitterUpToTheCap() {
    Backoff b = new Backoff(10, 1000);
    for (int i = 0; i < 200; i++) {
      assertThat(b.delayMillis(0)).isBetween(5L, 10L);
      assertThat(b.delayMillis(3)).isBetween(40L, 80L);
      assertThat(b.delayMillis(7)).isBetween(500L, 1000L);
      assertThat(b.delayMillis(60)).isBetween(500L, 1000L);
    }
  }

  @Test
  void jitterSpreadsDelays() {
    Backoff b = new Backoff(10, 1000);
    assertThat(java.util.stream.IntStream.range(0, 100).mapToLong(i -> b.delayMillis(6))
        .distinct().count()).isGreaterThan(10);
  }

  @Test
  void rejectsBadBounds() {
    assertThatThrownBy(() -> new Backoff(0, 10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(20, 10)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void deadlineCountsDown() {
    Deadline d = Deadline.after(60_000);
    assertThat(d.expired()).isFalse();
    assertThat(d.remainingMillis()).isBetween(1L, 60_000L);
    assertThat(d.timeoutMillis()).isEqualTo(60_000);
  }
}
