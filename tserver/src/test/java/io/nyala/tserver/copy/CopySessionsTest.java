package io.nyala.tserver.copy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tablet copy session's TTL runs on the injected monotonic clock, in nanoseconds
 * (docs/data-safety.md, "Time"): the session lives through exactly the TTL after its last use,
 * expires one nanosecond later and closes its image; the clock may cross the overflow of a long.
 */
@Timeout(30)
class CopySessionsTest {
  private static final long TTL_MS = 60_000;
  private static final long TTL_NANOS = TimeUnit.MILLISECONDS.toNanos(TTL_MS);

  @Test
  void ttlIsMeasuredOnTheMonotonicClockInNanoseconds() throws Exception {
    AtomicLong clock = new AtomicLong(Long.MAX_VALUE - TTL_NANOS / 2);
    AtomicInteger closed = new AtomicInteger();
    try (CopySessions sessions = new CopySessions(
        t -> new BytesImage(7, Map.of(1L, 10), closed), TTL_MS, clock::get)) {
      CopySessions.Session s = sessions.begin("t1", "joiner");

      clock.addAndGet(TTL_NANOS);
      sessions.sweep();
      assertThat(sessions.get(s.id)).as("alive at exactly the TTL").isSameAs(s);
      clock.addAndGet(TTL_NANOS);
      sessions.sweep();
      assertThat(sessions.activeCount()).as("alive a TTL after its last use").isEqualTo(1);

      clock.addAndGet(1);
      sessions.sweep();
      assertThat(sessions.activeCount()).isZero();
      assertThat(closed).hasValue(1);
      assertThatThrownBy(() -> sessions.get(s.id)).hasMessageContaining("not found");
    }
  }
}
