package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AnsweredWritesTest {
  private final AnsweredWrites answered = new AnsweredWrites();

  @Test
  void eachAnswerIsReportedOnceToItsOwnTablet() {
    answered.answered("a", 1);
    answered.answered("b", 2);
    answered.answered("a", 3);
    assertThat(answered.take("a")).containsExactly(1L, 3L);
    assertThat(answered.take("a")).isEmpty();
    assertThat(answered.take("b")).containsExactly(2L);
    assertThat(answered.take("never-written")).isEmpty();
  }

  @Test
  void aRequestReportsAtMostTheCapAndTheRestWait() {
    int n = AnsweredWrites.MAX_PER_REQUEST + 5;
    for (long s = 0; s < n; s++) {
      answered.answered("a", s);
    }
    assertThat(answered.take("a")).hasSize(AnsweredWrites.MAX_PER_REQUEST);
    assertThat(answered.take("a")).hasSize(5);
  }
}
