package io.nyala.tserver.tablet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ancient history mark is the index applied {@code maxAge} ago, never newer: exact at the
 * sampled moments, conservative between samples and before the first one ages in.
 */
@Timeout(10)
class AncientHistoryMarkTest {
  private static final long MAX_AGE = 6400;
  private final AtomicLong clock = new AtomicLong(Long.MAX_VALUE - 5000);
  private final AncientHistoryMark mark =
      new AncientHistoryMark(new HistoryRetention(MAX_AGE, clock::get));

  @Test
  void markIsTheIndexAppliedMaxAgeAgo() {
    long start = clock.get();
    assertThat(mark.mark(10)).as("nothing has aged in yet").isZero();
    clock.set(start + 100); // resolution: MAX_AGE / 64 = 100
    assertThat(mark.mark(20)).isZero();
    clock.set(start + MAX_AGE - 1);
    assertThat(mark.mark(30)).as("one tick before the first sample ages in").isZero();
    clock.set(start + MAX_AGE);
    assertThat(mark.mark(30)).isEqualTo(10);
    clock.set(start + MAX_AGE + 99);
    assertThat(mark.mark(30)).isEqualTo(10);
    clock.set(start + MAX_AGE + 100);
    assertThat(mark.mark(30)).isEqualTo(20);
  }

  @Test
  void indexesAppliedBetweenSamplesCountFromTheNextSample() {
    long start = clock.get();
    mark.mark(10);
    clock.set(start + 50); // inside the resolution: not sampled
    mark.mark(15);
    clock.set(start + 150);
    mark.mark(15);
    clock.set(start + MAX_AGE + 60);
    assertThat(mark.mark(15)).as("15 was applied at +50 but is only known from +150").isEqualTo(10);
    clock.set(start + MAX_AGE + 150);
    assertThat(mark.mark(15)).isEqualTo(15);
  }

  @Test
  void noRetentionMarksTheAppliedIndex() {
    AncientHistoryMark none = new AncientHistoryMark(HistoryRetention.NONE);
    assertThat(none.mark(42)).isEqualTo(42);
  }
}
