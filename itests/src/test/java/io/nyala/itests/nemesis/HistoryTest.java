package io.nyala.itests.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The history recorder: ordering under concurrent processes, its text form and file. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HistoryTest {
  @TempDir
  Path dir;

  @Test
  void concurrentProcessesGetOneCompletionAfterEachInvocationInTimeOrder() throws Exception {
    History h = new History();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      int process = p;
      threads.add(new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (long k = 0; k < 500; k++) {
          h.complete(h.invoke(process, OpType.WRITE, k, k, null), Outcome.OK, k, null);
        }
      }));
    }
    threads.forEach(Thread::start);
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    List<HistoryOp> events = h.events();
    assertThat(events).hasSize(4 * 500 * 2);
    Map<Long, HistoryOp> open = new HashMap<>();
    long last = Long.MIN_VALUE;
    for (HistoryOp e : events) {
      assertThat(e.nanos()).isGreaterThanOrEqualTo(last);
      last = e.nanos();
      if (e.outcome() == Outcome.INVOKE) {
        assertThat(open.put(e.id(), e)).isNull();
      } else {
        assertThat(open.remove(e.id())).isNotNull();
      }
    }
    assertThat(open).isEmpty();
  }

  @Test
  void writesOneLinePerEventHeadedBySeedAndSummary() throws Exception {
    History h = new History();
    h.complete(h.invoke(2, OpType.WRITE, 1, 17L, null), Outcome.UNKNOWN, 17L, "TIMED_OUT");
    h.invoke(-1, OpType.FAULT, 0, null, "kill-tserver");
    Path file = h.writeTo(dir.resolve("nemesis"), "NemesisIT", 42, "verdict: INVALID");
    List<String> lines = Files.readAllLines(file);
    assertThat(file.getFileName().toString()).isEqualTo("NemesisIT-42.txt");
    assertThat(lines.get(0)).isEqualTo("seed 42");
    assertThat(lines.get(1)).isEqualTo("verdict: INVALID");
    assertThat(lines.get(2)).contains("p2").contains("WRITE").contains("invoke").contains("#0")
        .contains("k=1").contains("v=17");
    assertThat(lines.get(3)).contains("unknown").contains("(TIMED_OUT)");
    assertThat(lines.get(4)).contains("nemesis").contains("FAULT").contains("(kill-tserver)")
        .doesNotContain("k=");
  }

  @Test
  void anOperationCompletesOnceAndOnlyAnInvocationCompletes() {
    History h = new History();
    HistoryOp invoked = h.invoke(0, OpType.READ, 1, null, null);
    HistoryOp done = h.complete(invoked, Outcome.OK, 3L, null);
    assertThatThrownBy(() -> h.complete(invoked, Outcome.FAIL, null, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already completed");
    assertThatThrownBy(() -> h.complete(done, Outcome.OK, 3L, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("READ");
  }
}
