package io.nyala.client;

import static io.nyala.client.ClientFixture.insert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.NyalaSession.FlushMode;
import io.nyala.client.fake.FakeTablet;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** AUTO_FLUSH_BACKGROUND: what starts a flush, back-pressure, errors, close. */
@Timeout(20)
class BackgroundFlushTest {
  private final ClientFixture f = new ClientFixture(1, 1);
  private NyalaTable table;
  private FakeTablet tablet;
  private NyalaSession session;

  @BeforeEach
  void setUp() {
    table = f.createTable("m", 1, 1);
    tablet = f.tablet("m", 0);
    session = f.client.newSession();
    session.setFlushMode(FlushMode.AUTO_FLUSH_BACKGROUND);
    // Nothing flushes by time unless a test says so.
    session.setFlushInterval(60_000);
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void flushesWhenTheBufferReachesItsByteLimit() {
    long rowBytes = SessionBuffer.encodedBytes(insert(table, 0, "same-length"));
    session.setMutationBufferMaxBytes(3 * rowBytes);
    session.apply(insert(table, 0, "same-length"));
    session.apply(insert(table, 1, "same-length"));
    assertThat(session.countBufferedOperations()).isEqualTo(2);
    session.apply(insert(table, 2, "same-length"));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablet.rowCount() == 3);
    assertThat(session.countBufferedOperations()).isZero();
    assertThat(tablet.leader().writes).hasSize(1);
  }

  @Test
  void flushesByOperationsBeforeTheByteLimit() {
    session.setMutationBufferSpace(2);
    session.apply(insert(table, 0, "a"));
    session.apply(insert(table, 1, "b"));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablet.rowCount() == 2);
    assertThat(session.countBufferedOperations()).isZero();
  }

  @Test
  void flushesAfterTheIntervalWhenTheBufferIsNotFull() {
    session.setFlushInterval(20);
    session.apply(insert(table, 0, "a"));
    await().atMost(Duration.ofSeconds(10)).until(() -> tablet.rowCount() == 1);
    assertThat(session.hasPendingOperations()).isFalse();
  }

  @Test
  void applyBlocksWhileTwoBuffersAreBeingWritten() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    tablet.leader().onEveryWrite((ts, req) -> {
      awaitQuietly(release);
      return null; // then apply as usual
    });
    session.setMutationBufferSpace(2);
    for (long k = 0; k < 4; k++) {
      session.apply(insert(table, k, "v")); // two full buffers: one held, one queued behind it
    }
    AtomicReference<Thread> applier = new AtomicReference<>();
    CompletableFuture<Void> fifth = CompletableFuture.runAsync(() -> {
      applier.set(Thread.currentThread());
      session.apply(insert(table, 4, "v"));
    });
    await().atMost(Duration.ofSeconds(10)).until(() -> applier.get() != null
        && applier.get().getState() == Thread.State.WAITING);
    assertThat(fifth).isNotDone();
    assertThat(session.countBufferedOperations()).isZero();

    release.countDown();
    fifth.get(10, TimeUnit.SECONDS);
    session.flush();
    assertThat(tablet.rowCount()).isEqualTo(5);
    assertThat(session.getPendingErrors().getRowErrors()).isEmpty();
  }

  @Test
  void rowErrorsAndFailedBatchesBecomePendingErrors() {
    f.insertRange(table, 10, 11);
    tablet.leader().onNextWrite((ts, req) -> {
      throw io.grpc.Status.INVALID_ARGUMENT.withDescription("refused by the test")
          .asRuntimeException();
    });
    session.setMutationBufferSpace(2);
    session.apply(insert(table, 0, "a"));
    session.apply(insert(table, 1, "b")); // this buffer fails as a whole
    session.apply(insert(table, 10, "dup"));
    session.flush();
    RowErrorsAndOverflowStatus errors = session.getPendingErrors();
    assertThat(errors.getRowErrors()).hasSize(3);
    assertThat(errors.getRowErrors().get(2).getErrorStatus().isAlreadyPresent()).isTrue();
    assertThat(session.countPendingErrors()).isZero();
  }

  @Test
  void closeFlushesEverythingAndKeepsItsErrors() {
    f.insertRange(table, 1, 2);
    session.setMutationBufferSpace(2);
    for (long k = 0; k < 5; k++) {
      session.apply(insert(table, k, "v"));
    }
    session.close();
    assertThat(tablet.rowCount()).isEqualTo(5);
    assertThat(session.hasPendingOperations()).isFalse();
    assertThat(session.getPendingErrors().getRowErrors()).singleElement()
        .satisfies(e -> assertThat(e.getOperation().getRow().get("key")).isEqualTo(1L));
  }

  @Test
  void refusesABadByteLimitNamingIt() {
    NyalaException e = org.junit.jupiter.api.Assertions.assertThrows(NyalaException.class,
        () -> session.setMutationBufferMaxBytes(0));
    assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(e.getMessage()).contains("mutation buffer max bytes").contains("0");
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
