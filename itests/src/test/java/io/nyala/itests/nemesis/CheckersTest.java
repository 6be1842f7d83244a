package io.nyala.itests.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The checkers on small hand-written histories. Events are recorded in the order written, which
 * is all the checkers look at, so each history below reads as a timeline.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CheckersTest {
  private final History h = new History(0);

  private HistoryOp write(int p, long v) {
    return h.invoke(p, OpType.WRITE, 1, v, null);
  }

  private HistoryOp read(int p) {
    return h.invoke(p, OpType.READ, 1, null, null);
  }

  private void ok(HistoryOp op, Long v) {
    h.complete(op, Outcome.OK, v, null);
  }

  private Boolean linearizable() {
    List<RegisterChecker.KeyVerdict> v = RegisterChecker.check(h.events());
    assertThat(v).hasSize(1);
    return v.get(0).linearizable();
  }

  @Test
  void sequentialWritesAndReadsAreLinearizable() {
    ok(read(0), null);
    ok(write(0, 1), 1L);
    ok(read(1), 1L);
    ok(write(1, 2), 2L);
    ok(read(0), 2L);
    assertThat(linearizable()).isTrue();
  }

  @Test
  void aReadOfAnOverwrittenValueIsNot() {
    ok(write(0, 1), 1L);
    ok(write(1, 2), 2L);
    ok(read(2), 1L);
    List<RegisterChecker.KeyVerdict> v = RegisterChecker.check(h.events());
    assertThat(v.get(0).linearizable()).isFalse();
    assertThat(v.get(0).detail()).contains("READ").contains("v=1");
  }

  @Test
  void aReadConcurrentWithAWriteMaySeeEitherValue() {
    ok(write(0, 1), 1L);
    HistoryOp w = write(0, 2);
    HistoryOp r1 = read(1);
    HistoryOp r2 = read(2);
    ok(r1, 2L);
    ok(r2, 1L);
    ok(w, 2L);
    assertThat(linearizable()).isTrue();
  }

  @Test
  void aValueCannotComeBackOnceAConcurrentReadSawTheNewOne() {
    ok(write(0, 1), 1L);
    HistoryOp w = write(0, 2);
    ok(read(1), 2L);
    ok(read(2), 1L);
    ok(w, 2L);
    assertThat(linearizable()).isFalse();
  }

  @Test
  void aReadCannotSeeAWriteInvokedAfterItReturned() {
    ok(read(1), 5L);
    ok(write(0, 5), 5L);
    assertThat(linearizable()).isFalse();
  }

  @Test
  void anUnknownWriteMayApplyLate() {
    ok(write(0, 1), 1L);
    h.complete(write(0, 2), Outcome.UNKNOWN, 2L, "timed out");
    ok(read(1), 1L);
    ok(read(2), 2L);
    assertThat(linearizable()).isTrue();
  }

  @Test
  void anUnknownWriteMayNeverApply() {
    ok(write(0, 1), 1L);
    h.complete(write(0, 2), Outcome.UNKNOWN, 2L, "timed out");
    ok(read(1), 1L);
    assertThat(linearizable()).isTrue();
  }

  @Test
  void anUnknownWriteAppliesAtMostOnce() {
    ok(write(0, 1), 1L);
    h.complete(write(0, 2), Outcome.UNKNOWN, 2L, "timed out");
    ok(read(1), 2L);
    ok(read(1), 1L);
    assertThat(linearizable()).isFalse();
  }

  @Test
  void aFailedWriteMustNotBeSeen() {
    ok(write(0, 1), 1L);
    h.complete(write(0, 2), Outcome.FAIL, 2L, "INVALID_ARGUMENT");
    ok(read(1), 2L);
    assertThat(linearizable()).isFalse();
  }

  @Test
  void keysAreCheckedApart() {
    ok(h.invoke(0, OpType.WRITE, 7, 1L, null), 1L);
    ok(h.invoke(0, OpType.READ, 8, null, null), null);
    ok(h.invoke(0, OpType.READ, 7, null, null), 1L);
    assertThat(RegisterChecker.check(h.events()))
        .extracting(RegisterChecker.KeyVerdict::linearizable).containsExactly(true, true);
  }

  /**
   * A seeded simulation of 5 processes on one atomic register: each operation takes effect at a
   * random point between its invocation and its return, some writes end unknown (applied or
   * not). The history is linearizable by construction; with one read's answer changed to a value
   * never written it is not.
   */
  @Test
  void aLongConcurrentHistoryIsDecidedBothWays() {
    List<HistoryOp> good = simulate(new History(0), 1000, false);
    assertThat(RegisterChecker.check(good)).extracting(RegisterChecker.KeyVerdict::linearizable)
        .containsExactly(true);
    List<HistoryOp> bad = simulate(new History(0), 1000, true);
    assertThat(RegisterChecker.check(bad)).extracting(RegisterChecker.KeyVerdict::linearizable)
        .containsExactly(false);
  }

  private static List<HistoryOp> simulate(History hist, int ops, boolean corruptOneRead) {
    Random random = new Random(7);
    HistoryOp[] pending = new HistoryOp[5];
    Long[] result = new Long[5];
    boolean[] applied = new boolean[5];
    Long register = null;
    long nextValue = 1;
    int invoked = 0;
    boolean corrupted = !corruptOneRead;
    while (invoked < ops || Arrays.stream(pending).anyMatch(o -> o != null)) {
      int p = random.nextInt(5);
      HistoryOp op = pending[p];
      if (op == null) {
        if (invoked++ < ops) {
          boolean write = random.nextBoolean();
          pending[p] = hist.invoke(p, write ? OpType.WRITE : OpType.READ, 1,
              write ? nextValue++ : null, null);
          applied[p] = false;
        }
      } else if (!applied[p] && random.nextInt(3) > 0) {
        applied[p] = true;
        if (op.type() == OpType.WRITE) {
          register = op.value();
        } else {
          result[p] = register;
        }
      } else if (applied[p] || op.type() == OpType.WRITE) {
        Outcome outcome = op.type() == OpType.WRITE && random.nextInt(10) == 0
            ? Outcome.UNKNOWN : Outcome.OK;
        if (!applied[p] && outcome == Outcome.OK) {
          continue; // an ok write must have taken effect before it returns
        }
        Long value = op.type() == OpType.WRITE ? op.value() : result[p];
        if (!corrupted && op.type() == OpType.READ && invoked > ops / 2) {
          value = -1L;
          corrupted = true;
        }
        hist.complete(op, outcome, value, null);
        pending[p] = null;
      }
    }
    return hist.events();
  }

  @Test
  void setCheckerCountsOutcomesAndFindsLostAndResurrectedKeys() {
    h.complete(h.invoke(0, OpType.INSERT, 1, 1L, null), Outcome.OK, 1L, null);
    h.complete(h.invoke(0, OpType.INSERT, 2, 2L, null), Outcome.OK, 2L, null);
    h.complete(h.invoke(0, OpType.INSERT, 3, 3L, null), Outcome.FAIL, 3L, null);
    h.complete(h.invoke(0, OpType.INSERT, 4, 4L, null), Outcome.UNKNOWN, 4L, null);
    h.complete(h.invoke(0, OpType.INSERT, 5, 5L, null), Outcome.UNKNOWN, 5L, null);
    h.invoke(0, OpType.INSERT, 6, 6L, null);

    SetChecker.Verdict good = SetChecker.check(h.events(), Set.of(1L, 2L, 4L));
    assertThat(good.valid()).isTrue();
    assertThat(List.of(good.ok(), good.fail(), good.unknownPresent(), good.unknownAbsent()))
        .containsExactly(2, 1, 1, 2);

    SetChecker.Verdict bad = SetChecker.check(h.events(), Set.of(1L, 3L, 9L));
    assertThat(bad.valid()).isFalse();
    assertThat(bad.lost()).containsExactly(2L);
    assertThat(bad.resurrected()).containsExactly(3L);
    assertThat(bad.unexpected()).containsExactly(9L);
  }
}
