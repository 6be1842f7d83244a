package io.nyala.tserver.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.ScannerKeepAliveRequestPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowBlock;
import io.nyala.common.row.RowOpType;
import io.nyala.common.rpc.RawBytes;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import io.nyala.tserver.TserverOptions;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live tablet server over real gRPC takes 10,000 random, truncated and lying Write and Scan
 * requests: every answer is an error code or a valid response, none hangs, the server still
 * serves afterwards and its heap stays bounded (docs/data-safety.md, "Input"). Seeded: the seed
 * is printed, and {@code -Dnyala.fuzz.seed=<seed>} replays a run.
 */
@Timeout(120)
class RequestFuzzTest {
  private static final int REQUESTS = 10_000;
  private static final String TABLET = io.nyala.common.consensus.RaftIds.newId();
  /** Growth of the used heap (after GC) the run may leave behind: generous, but far below 1 GiB. */
  private static final long HEAP_GROWTH_BOUND = 96L << 20;
  /** Short, so that scanners the run leaves open expire before it ends. */
  private static final long SCANNER_TTL_MS = 2000;
  @TempDir
  Path dir;

  private TserverFixture fx;
  private TabletServer ts;
  private RequestMutator mutate;
  private final List<ByteString> openScanners = new ArrayList<>();
  private final List<Integer> nextSeq = new ArrayList<>();
  private long appliedIndex = 1;

  @Test
  void randomAndTruncatedWritesAndScansGetAnErrorOrAValidAnswer() {
    long seed = Long.getLong("nyala.fuzz.seed", new SecureRandom().nextLong());
    System.out.println(
        "RequestFuzzTest seed " + seed + " (replay: -Dnyala.fuzz.seed=" + seed + ")");
    Random rnd = new Random(seed);
    try (TserverFixture f = new TserverFixture();
         TabletServer server = TserverFixture.start(options())) {
      fx = f;
      ts = server;
      fx.createTablet(TABLET, List.of(ts));
      TserverFixture.awaitLeader(TABLET, List.of(ts));
      mutate = new RequestMutator(rnd, TABLET, TserverFixture.SCHEMA);
      answerOf(fx.write(ts, TserverFixture.inserts(TABLET, 1000, 1100, RowOpType.INSERT)));
      long heapBefore = usedHeapAfterGc();

      for (int i = 0; i < REQUESTS; i++) {
        StringBuilder kind = new StringBuilder();
        try {
          oneRequest(kind);
        } catch (AssertionError | RuntimeException e) {
          throw new AssertionError("request " + i + " (" + kind + ") of the run with seed "
              + seed + ": " + e.getMessage(), e);
        }
      }
      closeOpenScanners();

      // Still serving: a valid write and a full scan.
      assertThat(answerOf(fx.write(ts, TserverFixture.inserts(TABLET, 5000, 5010,
          RowOpType.INSERT))).getPerRowErrorsCount()).isZero();
      assertThat(fx.scanAll(ts, TABLET, 100)).hasSizeGreaterThanOrEqualTo(110);
      // Scanners whose answers were dropped (damaged bytes that still parsed) expire by TTL.
      await().atMost(Duration.ofSeconds(20)).until(() -> ts.scanners().activeCount() == 0);
      long growth = usedHeapAfterGc() - heapBefore;
      System.out.printf("RequestFuzzTest: %d requests, used heap grew by %d KiB%n", REQUESTS,
          growth >> 10);
      assertThat(growth).as("heap growth (bytes) after %d requests", REQUESTS)
          .isLessThan(HEAP_GROWTH_BOUND);
    }
  }

  private TserverOptions options() {
    TserverOptions o = TserverFixture.options(dir, TserverFixture.freePort());
    o.scannerTtlMs = SCANNER_TTL_MS;
    return o;
  }

  private void oneRequest(StringBuilder kind) {
    int pick = mutate.nextInt(100);
    if (pick < 30) {
      WriteRequestPB req = mutate.write(kind);
      WriteResponsePB resp = stub().write(req);
      checkWrite(req, resp);
    } else if (pick < 55) {
      ScanRequestPB req = mutate.newScan(kind, appliedIndex);
      checkScan(stub().scan(req), null);
    } else if (pick < 80 && !openScanners.isEmpty()) {
      int k = mutate.nextInt(openScanners.size());
      ScanRequestPB req = mutate.continuation(openScanners.get(k), nextSeq.get(k), kind);
      checkScan(stub().scan(req), k);
    } else if (pick < 88) {
      ScanRequestPB req = mutate.continuation(mutate.randomBytes(20), mutate.anInt(), kind);
      kind.append(" of a bogus scanner");
      checkScan(stub().scan(req), null);
    } else if (pick < 92) {
      kind.append("keep-alive of a bogus scanner");
      ErrorPB e = stub().scannerKeepAlive(ScannerKeepAliveRequestPB.newBuilder()
          .setScannerId(mutate.randomBytes(20)).build()).getError();
      checkError(e);
      assertThat(NyalaException.isError(e)).isTrue();
    } else if (pick < 96) {
      kind.append("damaged Write bytes");
      raw(TabletServerServiceGrpc.getWriteMethod(), mutate.validWrite());
    } else {
      kind.append("damaged Scan bytes");
      raw(TabletServerServiceGrpc.getScanMethod(), mutate.newScan(new StringBuilder(), 0));
    }
  }

  private TabletServerServiceGrpc.TabletServerServiceBlockingStub stub() {
    return fx.data(ts).withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  private void checkWrite(WriteRequestPB req, WriteResponsePB resp) {
    if (NyalaException.isError(resp.getError())) {
      checkError(resp.getError());
      return;
    }
    assertThat(resp.getWriteIndex()).isPositive();
    appliedIndex = Math.max(appliedIndex, resp.getWriteIndex());
    for (var e : resp.getPerRowErrorsList()) {
      assertThat(e.getRowIndex()).isBetween(0, req.getRowOperations().getCount() - 1);
    }
  }

  /** A valid page decodes in its projection; a scanner left open is remembered, or forgotten. */
  private void checkScan(ScanResponsePB resp, Integer known) {
    if (NyalaException.isError(resp.getError())) {
      checkError(resp.getError());
      if (known != null) {
        forget(known);
      }
      return;
    }
    if (resp.hasProjection()) {
      List<Object[]> rows = RowBlock.decode(Schema.fromPb(resp.getProjection()), resp.getData());
      assertThat(rows).hasSize(resp.getData().getNumRows());
    } else {
      // A close: no page.
      assertThat(resp.getData().getNumRows()).isZero();
      assertThat(resp.getHasMoreResults()).isFalse();
    }
    if (known != null) {
      if (resp.getHasMoreResults()) {
        nextSeq.set(known, nextSeq.get(known) + 1);
      } else {
        forget(known);
      }
    } else if (resp.getHasMoreResults()) {
      assertThat(resp.getScannerId()).isNotEmpty();
      openScanners.add(resp.getScannerId());
      nextSeq.add(1);
    }
  }

  private void forget(int k) {
    openScanners.remove(k);
    nextSeq.remove(k);
  }

  /** An error is a deliberate answer: a code other than the one for an unexpected exception. */
  private static void checkError(ErrorPB e) {
    assertThat(NyalaException.fromPb(e).code()).as("error code of '%s'", e.getMessage())
        .isNotEqualTo(StatusCode.RUNTIME_ERROR);
    assertThat(e.getMessage()).isNotEmpty();
  }

  /** Sends damaged bytes of a request: what does not parse is INVALID_ARGUMENT, else answered. */
  private <Q extends MessageLite, A> void raw(MethodDescriptor<Q, A> method, Q valid) {
    MethodDescriptor<byte[], byte[]> m = RawBytes.of(method);
    Channel ch = fx.data(ts).getChannel();
    try {
      byte[] answer = ClientCalls.blockingUnaryCall(ch, m,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS),
          mutate.damagedBytes(valid.toByteArray()));
      assertThat(answer).isNotNull();
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).as("gRPC status %s", e.getStatus())
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(e.getStatus().getDescription()).startsWith("not a valid ");
    }
  }

  private void closeOpenScanners() {
    for (ByteString id : openScanners) {
      checkScanClosed(stub().scan(ScanRequestPB.newBuilder().setScannerId(id)
          .setCloseScanner(true).build()));
    }
    openScanners.clear();
    nextSeq.clear();
  }

  private static void checkScanClosed(ScanResponsePB resp) {
    if (NyalaException.isError(resp.getError())) {
      checkError(resp.getError());
    }
  }

  private static WriteResponsePB answerOf(WriteResponsePB resp) {
    if (NyalaException.isError(resp.getError())) {
      throw NyalaException.fromPb(resp.getError());
    }
    return resp;
  }

  private static long usedHeapAfterGc() {
    var mem = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      mem.gc();
    }
    return mem.getHeapMemoryUsage().getUsed();
  }
}
