package io.nyala.client;

import com.google.protobuf.ByteString;
import io.nyala.client.locations.RemoteTablet;
import io.nyala.client.locations.Replica;
import io.nyala.client.locations.TableLocations;
import io.nyala.client.locations.TabletCaller;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.client.rpc.TransportException;
import io.nyala.client.stats.ClientCounters;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.ReadModePB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.row.ColumnarRows;
import io.nyala.common.row.KeyEncoder;
import io.nyala.common.schema.Schema;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * The scan of one tablet: opens a server-side scanner on the tablet's leader, then pages through
 * it with increasing call sequence ids. If a continuation fails because the leader changed or the
 * scanner is gone, the scan reopens (on whichever replica now leads) just after the last primary
 * key returned, at the same snapshot, so no row is returned twice or skipped.
 *
 * <p>Not thread-safe: its {@link AsyncNyalaScanner} makes one call at a time.
 */
final class TabletScan {
  private final AsyncNyalaClient client;
  private final NyalaTable table;
  private final ScanSpec spec;
  private final RemoteTablet tablet;
  private final TableLocations locations;
  /** The tablet and replica that hold the open server-side scanner. */
  private RemoteTablet servingTablet;
  private Replica replica;
  private ByteString scannerId = ByteString.EMPTY;
  private int callSeqId;
  private boolean hasMore = true;
  /** Encoded key of the last row returned, or null before the first. */
  private byte[] lastPrimaryKey;
  /** The snapshot the first page read at, 0 until known. */
  private long snapIndex;

  TabletScan(AsyncNyalaClient client, NyalaTable table, ScanSpec spec, RemoteTablet tablet) {
    this.client = client;
    this.table = table;
    this.spec = spec;
    this.tablet = tablet;
    this.locations = client.locations(table);
  }

  /** @return the tablet being scanned */
  RemoteTablet tablet() {
    return tablet;
  }

  /** @return whether the tablet may have more rows */
  boolean hasMore() {
    return hasMore;
  }

  /** @return the snapshot this tablet's scan reads at, 0 if not yet known */
  long snapIndex() {
    return snapIndex;
  }

  /**
   * Opens the scan and returns its first page.
   *
   * @param limit the most rows still wanted over the whole scan
   * @param deadline when to give up
   * @return the page
   */
  CompletableFuture<RowResultIterator> open(long limit, Deadline deadline) {
    long snap = 0;
    if (spec.readMode() == ReadMode.READ_AT_SNAPSHOT && !spec.snapshot().isEmpty()) {
      Long s = spec.snapshot().get(tablet.id());
      if (s == null) {
        return CompletableFuture.failedFuture(NyalaException.invalidArgument("the scan's "
            + "snapshot has no index for tablet %s of table '%s'", tablet.id(), table.getName()));
      }
      if (s == 0) {
        // Index 0 is a tablet's first entry, its configuration: nothing was written by then.
        hasMore = false;
        return CompletableFuture.completedFuture(RowResultIterator.empty());
      }
      snap = s;
    }
    return start(spec.startKey(), spec.readMode().toPb(), snap, limit, deadline);
  }

  /** With READ_YOUR_WRITES, the write index the replica must have applied before it reads. */
  private long minApplied() {
    if (spec.readMode() != ReadMode.READ_YOUR_WRITES) {
      return 0;
    }
    return Math.max(client.writePositions().of(tablet.id()),
        spec.minApplied().getOrDefault(tablet.id(), 0L));
  }

  /**
   * Returns the next page, reopening the scan elsewhere if the tablet's leadership moved.
   *
   * @param limit the most rows still wanted over the whole scan
   * @param deadline when to give up
   * @return the page
   */
  CompletableFuture<RowResultIterator> next(long limit, Deadline deadline) {
    ScanRequestPB req = ScanRequestPB.newBuilder().setScannerId(scannerId)
        .setCallSeqId(++callSeqId).setBatchSizeRows(spec.batchSizeRows())
        .setBatchSizeBytes(spec.batchSizeBytes()).build();
    Transport transport = client.transport();
    Replica r = replica;
    ClientCounters counters = client.tabletCaller().counters();
    counters.rpcSent();
    return transport.<ScanResponsePB>call(r.rpcAddress(),
            obs -> transport.tserver(r.rpcAddress(),
                deadline.forAttempt(client.tabletCaller().attemptTimeoutMs())).scan(req, obs))
        .handle((resp, err) -> {
          NyalaException e = err != null ? NyalaException.from(err)
              : NyalaException.isError(resp.getError()) ? NyalaException.fromPb(resp.getError())
              : null;
          if (e == null) {
            return CompletableFuture.completedFuture(onPage(resp));
          }
          counters.rpcFailed(e.code());
          TabletCaller.Disposition d = TabletCaller.classify(locations, servingTablet, r, e);
          // NOT_FOUND here is usually our scanner (expired, or its server restarted): reopen.
          // So is a refused token: the reopening call renews it once (TabletCaller).
          boolean tokenRefused = e instanceof TransportException te && te.isUnauthenticated();
          if (d == TabletCaller.Disposition.FAIL && e.code() != StatusCode.NOT_FOUND
              && !tokenRefused) {
            return CompletableFuture.<RowResultIterator>failedFuture(e);
          }
          counters.rpcRetried(tablet.id());
          return restart(limit, deadline);
        })
        .thenCompose(f -> f);
  }

  private CompletableFuture<RowResultIterator> restart(long limit, Deadline deadline) {
    byte[] from = spec.startKey();
    if (lastPrimaryKey != null) {
      // Encoded keys compare as unsigned bytes, so key + 0x00 is the smallest key after it.
      byte[] after = Arrays.copyOf(lastPrimaryKey, lastPrimaryKey.length + 1);
      if (KeyEncoder.compare(after, from) > 0) {
        from = after;
      }
    }
    scannerId = ByteString.EMPTY;
    callSeqId = 0;
    ReadModePB mode = snapIndex > 0 ? ReadModePB.READ_AT_SNAPSHOT : spec.readMode().toPb();
    return start(from, mode, snapIndex, limit, deadline);
  }

  private CompletableFuture<RowResultIterator> start(byte[] startKey, ReadModePB mode,
      long snap, long limit, Deadline deadline) {
    NewScanRequestPB.Builder nsr = NewScanRequestPB.newBuilder()
        .setTabletId(tablet.id())
        .addAllProjectedColumns(spec.projectedColumns())
        .addAllPredicates(spec.predicatePbs())
        .setStartPrimaryKey(ByteString.copyFrom(startKey))
        .setStopPrimaryKey(ByteString.copyFrom(spec.stopKey()))
        .setLimit(limit == Long.MAX_VALUE ? 0 : limit)
        .setReadMode(mode)
        .setSnapIndex(snap)
        .setMinAppliedIndex(mode == ReadModePB.READ_YOUR_WRITES ? minApplied() : 0);
    ScanRequestPB req = ScanRequestPB.newBuilder().setNewScanRequest(nsr)
        .setBatchSizeRows(spec.batchSizeRows()).setBatchSizeBytes(spec.batchSizeBytes()).build();
    String what = String.format("scan of tablet %s of table '%s'", tablet.id(), table.getName());
    Transport transport = client.transport();
    return client.tabletCaller().<ScanResponsePB>call(what, locations, tablet.partitionKeyStart(),
        (t, r, d) -> transport.<ScanResponsePB>call(r.rpcAddress(),
            obs -> transport.tserver(r.rpcAddress(), d).scan(req, obs)),
        ScanResponsePB::getError, deadline).handle((served, err) -> {
          if (err != null) {
            throw namingTable(NyalaException.from(err));
          }
          servingTablet = served.tablet();
          replica = served.replica();
          client.tabletCaller().counters().scannerOpened();
          return onPage(served.response());
        });
  }

  /**
   * A server names a column missing from the tablet's schema (say, dropped by an ALTER since a
   * scan token was made) but not the table: the application needs both.
   */
  private NyalaException namingTable(NyalaException e) {
    if (e.code() != StatusCode.NOT_FOUND || !e.detail().contains("column")) {
      return e;
    }
    return new NyalaException(e.code(), String.format("scan of table '%s' (tablet %s): %s",
        table.getName(), tablet.id(), e.detail()), e);
  }

  private RowResultIterator onPage(ScanResponsePB resp) {
    scannerId = resp.getScannerId();
    hasMore = resp.getHasMoreResults() && !scannerId.isEmpty();
    if (snapIndex == 0 && resp.getSnapIndex() > 0) {
      snapIndex = resp.getSnapIndex();
    }
    if (!resp.getLastPrimaryKey().isEmpty()) {
      lastPrimaryKey = resp.getLastPrimaryKey().toByteArray();
    }
    Schema projection = resp.hasProjection() && resp.getProjection().getColumnsCount() > 0
        ? Schema.fromPb(resp.getProjection()) : spec.projection();
    ColumnarRows rows = ColumnarRows.decode(projection, resp.getData());
    client.tabletCaller().counters().scanPage(rows.numRows(),
        resp.getData().getSerializedSize());
    return new RowResultIterator(rows);
  }

  /**
   * Releases the server-side scanner if it is still open. Best effort: an abandoned scanner
   * expires on the server anyway.
   */
  void close() {
    if (!hasMore || scannerId.isEmpty() || replica == null) {
      hasMore = false;
      return;
    }
    hasMore = false;
    ScanRequestPB req = ScanRequestPB.newBuilder().setScannerId(scannerId)
        .setCallSeqId(++callSeqId).setCloseScanner(true).build();
    Transport transport = client.transport();
    Replica r = replica;
    Deadline d = Deadline.after(spec.timeoutMs());
    try {
      transport.<ScanResponsePB>call(r.rpcAddress(),
          obs -> transport.tserver(r.rpcAddress(), d).scan(req, obs));
    } catch (NyalaException e) {
      // The client is closing; the server will expire the scanner.
    }
  }
}
