package io.nyala.common.metrics.ratis;

import java.util.concurrent.atomic.LongAdder;
import org.apache.ratis.metrics.LongCounter;

/**
 * Ratis' counter on a {@link LongAdder}: an update is one uncontended add on a striped cell,
 * however many threads count at once. Ratis also counts down with some (pending requests), so
 * {@link #dec} is allowed.
 */
final class RatisCounter implements LongCounter, RatisMetric {
  private final LongAdder count = new LongAdder();

  @Override
  public void inc(long n) {
    count.add(n);
  }

  @Override
  public void dec(long n) {
    count.add(-n);
  }

  @Override
  public long getCount() {
    return count.sum();
  }
}
