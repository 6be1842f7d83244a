package io.nyala.tserver.service;

import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.RowBlock;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.consensus.TabletStateMachine;
import io.nyala.tserver.replica.ColdReads;
import io.nyala.tserver.replica.TabletManager;
import io.nyala.tserver.replica.TabletReplica;
import io.nyala.tserver.scan.Scanner;
import io.nyala.tserver.scan.ScannerManager;
import io.nyala.tserver.tablet.ScanPage;
import io.nyala.tserver.tablet.TabletScanSpec;
import io.nyala.tserver.tablet.TabletStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The Scan RPC. The first call resolves projection and predicates, obtains the read point (a
 * linearizable Raft read for READ_LATEST, or waits for the asked snapshot to be applied), pins it
 * and opens a scanner; every page then reads that same snapshot with those same columns, by id,
 * even after an ALTER (each response names them as they were at the open).
 */
final class ScanHandler {
  private static final long SNAPSHOT_WAIT_MS = 10_000;
  /** Page size in bytes when the request does not say (Kudu's default). */
  static final long DEFAULT_BATCH_BYTES = 1 << 20;

  private final TabletManager tablets;
  private final Supplier<RaftServer> raft;
  private final ScannerManager scanners;
  private final ColdReads cold;
  private final int defaultBatchRows;
  private final MetricRegistry.Counter rowsReturned;
  private final MetricRegistry.Counter scannersOpened;

  ScanHandler(TabletManager tablets, Supplier<RaftServer> raft, ScannerManager scanners,
      ColdReads cold, int defaultBatchRows, MetricRegistry metrics) {
    this.tablets = tablets;
    this.raft = raft;
    this.scanners = scanners;
    this.cold = cold;
    this.defaultBatchRows = defaultBatchRows;
    this.rowsReturned = metrics.counter("scan_rows_returned_total", "Rows returned by scans");
    this.scannersOpened = metrics.counter("scanners_opened_total",
        "Server-side scanners opened, one per tablet a scan reads (a reopen counts again)");
  }

  CompletableFuture<ScanResponsePB> scan(ScanRequestPB req) {
    if (req.hasNewScanRequest()) {
      return openScan(req);
    }
    if (req.getScannerId().isEmpty()) {
      throw NyalaException.invalidArgument("scan request has neither a scanner id nor a new scan");
    }
    Scanner s = scanners.get(req.getScannerId().toByteArray());
    if (req.getCloseScanner()) {
      scanners.close(s);
      return CompletableFuture.completedFuture(ScanResponsePB.newBuilder()
          .setSnapIndex(s.spec().snapshot()).build());
    }
    s.checkSeq(req.getCallSeqId());
    return CompletableFuture.completedFuture(page(s, req));
  }

  private CompletableFuture<ScanResponsePB> openScan(ScanRequestPB req) {
    NewScanRequestPB n = req.getNewScanRequest();
    ColdReads.Pinned c = coldPin(n);
    if (c != null) {
      // A cold replica read from its flushed store, its group left closed (docs/dense-nodes.md,
      // "Reading a cold tablet without waking it").
      try {
        return openScan(req, c.store(), () -> CompletableFuture.completedFuture(c.snapshot()));
      } catch (RuntimeException e) {
        c.store().unpin(c.snapshot()); // a bad request: the scanner that would unpin is not open
        throw e;
      }
    }
    TabletReplica replica = tablets.use(n.getTabletId(), CallerDeadline.nanos());
    return replica.serve(() -> openScan(replica, req));
  }

  /** The snapshot a cold replica pins for this scan, or null to take the normal path. */
  private ColdReads.Pinned coldPin(NewScanRequestPB n) {
    if (n.getReadMode() == ReadModePB.READ_AT_SNAPSHOT) {
      // Index 0 is "whatever this replica applied": served as the latest state.
      return cold.pin(n.getTabletId(), n.getSnapIndex(), 0, CallerDeadline.nanos());
    }
    long min = n.getReadMode() == ReadModePB.READ_YOUR_WRITES ? n.getMinAppliedIndex() : 0;
    return min < 0 ? null : cold.pin(n.getTabletId(), 0, min, CallerDeadline.nanos());
  }

  private CompletableFuture<ScanResponsePB> openScan(TabletReplica replica, ScanRequestPB req) {
    RaftServer server = raft.get();
    replica.checkLeader(server);
    TabletStateMachine sm = replica.stateMachine();
    return openScan(req, sm.store(), () -> readPoint(replica, server, req.getNewScanRequest()));
  }

  /**
   * Opens a scanner on {@code store} at the snapshot {@code readPoint} pins, once the request's
   * projection and predicates are known to be good.
   */
  private CompletableFuture<ScanResponsePB> openScan(ScanRequestPB req, TabletStore store,
      Supplier<CompletableFuture<Long>> readPoint) {
    NewScanRequestPB n = req.getNewScanRequest();
    // The store's schema, not the metadata's: it moves with alters as they are applied.
    Schema schema = store.schema();
    List<ColumnPredicate> preds = new ArrayList<>(n.getPredicatesCount());
    for (ColumnPredicatePB p : n.getPredicatesList()) {
      preds.add(ColumnPredicate.fromPb(schema, p));
    }
    TabletScanSpec spec = TabletScanSpec.of(schema, n.getProjectedColumnsList(), preds,
        n.getStartPrimaryKey().toByteArray(), n.getStopPrimaryKey().toByteArray(), 0);
    CompletableFuture<Long> pinned = readPoint.get();
    return pinned.thenApply(snap -> {
      Scanner s = scanners.register(n.getTabletId(), store, spec.atSnapshot(snap), n.getLimit());
      scannersOpened.inc();
      try {
        s.checkSeq(req.getCallSeqId());
        return page(s, req);
      } catch (RuntimeException e) {
        scanners.close(s);
        throw e;
      }
    });
  }

  /** Waits for and pins the snapshot the scan reads at; completes with its index. */
  private CompletableFuture<Long> readPoint(TabletReplica replica, RaftServer server,
      NewScanRequestPB n) {
    TabletStateMachine sm = replica.stateMachine();
    TabletStore store = sm.store();
    if (n.getReadMode() == ReadModePB.READ_AT_SNAPSHOT && n.getSnapIndex() > 0) {
      long snap = n.getSnapIndex();
      checkSnapshotInLog(replica, server, snap);
      return sm.whenApplied(snap)
          .orTimeout(SNAPSHOT_WAIT_MS, TimeUnit.MILLISECONDS)
          .exceptionally(t -> {
            throw NyalaException.timedOut("tablet %s: snapshot index %d not applied within %d ms",
                n.getTabletId(), snap, SNAPSHOT_WAIT_MS);
          })
          .thenApply(ignored -> {
            store.pin(snap);
            return snap;
          });
    }
    if (n.getReadMode() == ReadModePB.READ_YOUR_WRITES) {
      return readYourWrites(replica, server, n.getMinAppliedIndex());
    }
    if (n.getReadMode() == ReadModePB.READ_AT_SNAPSHOT) {
      return CompletableFuture.completedFuture(store.pinLatest(sm.appliedIndex()));
    }
    return RaftCalls.read(server, replica.groupId(), ByteString.EMPTY)
        .thenApply(reply -> store.pinLatest(reply.asReadOnlyByteBuffer().getLong()));
  }

  /**
   * Read-your-writes (docs/architecture.md, "Consistent reads"): the applied index once it has
   * reached the client's last write index. A write the client saw committed, so it is in this
   * leader's log; a leader still applying it is waited for until the caller's deadline, then
   * answers SERVICE_UNAVAILABLE so that the client retries, here or on a newer leader.
   */
  private CompletableFuture<Long> readYourWrites(TabletReplica replica, RaftServer server,
      long minIndex) {
    TabletStateMachine sm = replica.stateMachine();
    if (minIndex < 0) {
      throw NyalaException.invalidArgument("tablet %s: min applied index must not be negative, "
          + "got %d", replica.tabletId(), minIndex);
    }
    if (minIndex > 0) {
      checkSnapshotInLog(replica, server, minIndex);
    }
    long waitNanos = Math.max(0, CallerDeadline.nanos() - System.nanoTime());
    return sm.whenApplied(minIndex)
        .orTimeout(waitNanos, TimeUnit.NANOSECONDS)
        .exceptionally(t -> {
          throw NyalaException.unavailable("tablet %s: write index %d not applied yet "
              + "(applied %d)", replica.tabletId(), minIndex, sm.appliedIndex());
        })
        .thenApply(ignored -> sm.store().pinLatest(sm.appliedIndex()));
  }

  /**
   * A snapshot index beyond the leader's log can only be a bad request (a snapshot a client got
   * was committed, so it is in every leader's log): refused at once rather than waited for.
   */
  private static void checkSnapshotInLog(TabletReplica replica, RaftServer server, long snap) {
    long last = replica.division(server).getRaftLog().getNextIndex() - 1;
    if (snap > last) {
      throw NyalaException.invalidArgument("tablet %s: snapshot index %d is beyond the last "
          + "index in its log, %d", replica.tabletId(), snap, last);
    }
  }

  private ScanResponsePB page(Scanner s, ScanRequestPB req) {
    // Without a row cap a page is cut by bytes alone: a page of 1,000 small rows made the
    // per-call costs (docs/performance.md, "Scans") a large share of a full scan.
    int batch = req.getBatchSizeRows() > 0 ? req.getBatchSizeRows()
        : defaultBatchRows > 0 ? defaultBatchRows : Integer.MAX_VALUE;
    ScanPage p;
    long bytes = req.getBatchSizeBytes() > 0 ? req.getBatchSizeBytes() : DEFAULT_BATCH_BYTES;
    try {
      p = s.nextPage(batch, bytes);
    } catch (RuntimeException e) {
      scanners.close(s);
      throw e;
    }
    Schema projection = s.spec().projection();
    // Sized for the page (8 bytes a value, at most the page's bytes plus a row's worth), so that
    // a full page is not copied again and again while it grows.
    long estimate = 8L * p.rows().size() * (projection.columnCount() + 1);
    RowBlock block = new RowBlock(projection,
        (int) Math.min(Math.max(estimate, 4096), Math.min(bytes + 4096, 8 << 20)));
    p.rows().forEach(block::add);
    rowsReturned.add(p.rows().size());
    ScanResponsePB.Builder b = ScanResponsePB.newBuilder()
        .setData(block.toPb())
        .setHasMoreResults(p.hasMore())
        .setSnapIndex(s.spec().snapshot())
        .setProjection(projection.toPb());
    if (p.lastKey() != null) {
      b.setLastPrimaryKey(com.google.protobuf.ByteString.copyFrom(p.lastKey()));
    }
    if (p.hasMore()) {
      b.setScannerId(com.google.protobuf.ByteString.copyFrom(s.id()));
    } else {
      scanners.close(s);
    }
    return b.build();
  }
}
