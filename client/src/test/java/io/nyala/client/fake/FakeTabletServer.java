package io.nyala.client.fake;

import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.proto.ErrorPB;
import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.NewScanRequestPB;
import io.nyala.common.proto.tserver.PerRowErrorPB;
import io.nyala.common.proto.tserver.ScanRequestPB;
import io.nyala.common.proto.tserver.ScanResponsePB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.row.RowBlock;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fake tablet server. Writes apply to the fake tablet's sorted map with the real per-row
 * semantics (duplicate INSERT, missing UPDATE/DELETE, IGNORE variants) and an exactly-once cache
 * keyed by (client id, seq_no); scans snapshot the matching rows at open and page through them.
 * Only the tablet's leader serves; other replicas answer NOT_LEADER, with the leader as hint
 * when the cluster gives hints. Hooks let a test replace the answer to a call.
 */
public final class FakeTabletServer extends TabletServerServiceGrpc.TabletServerServiceImplBase {
  /**
   * Decides a call before the fake handles it.
   *
   * @param <Q> request type
   * @param <R> response type
   */
  @FunctionalInterface
  public interface Hook<Q, R> {
    /**
     * @param ts this server (hooks may call {@link #applyWrite} to apply and still fail)
     * @param req the request
     * @return a response to send instead, or null to handle the call normally; throw a
     *     {@link StatusRuntimeException} to fail the call at the gRPC level
     */
    R apply(FakeTabletServer ts, Q req);
  }

  private final FakeCluster cluster;
  private final String uuid;
  private final Server server;
  private final HostPort address;
  /** Every write request received, in order. */
  public final List<WriteRequestPB> writes = Collections.synchronizedList(new ArrayList<>());
  /** Every scan request received, in order. */
  public final List<ScanRequestPB> scans = Collections.synchronizedList(new ArrayList<>());
  private final ConcurrentLinkedDeque<Hook<WriteRequestPB, WriteResponsePB>> nextWrites =
      new ConcurrentLinkedDeque<>();
  private volatile Hook<WriteRequestPB, WriteResponsePB> everyWrite;
  /** How many coming writes to apply without ever answering. */
  private final java.util.concurrent.atomic.AtomicInteger writesToWithhold =
      new java.util.concurrent.atomic.AtomicInteger();
  private final ConcurrentLinkedDeque<Hook<ScanRequestPB, ScanResponsePB>> nextScans =
      new ConcurrentLinkedDeque<>();
  private final Map<ByteString, FakeScanner> scanners = new ConcurrentHashMap<>();
  private final AtomicInteger scannerIds = new AtomicInteger();
  private volatile boolean stopped;

  FakeTabletServer(FakeCluster cluster, String uuid) {
    this.cluster = cluster;
    this.uuid = uuid;
    this.server = GrpcServers.start(this);
    this.address = GrpcServers.address(server);
  }

  /** @return the server's uuid */
  public String uuid() {
    return uuid;
  }

  /** @return the server's RPC address */
  public HostPort address() {
    return address;
  }

  TSInfoPB tsInfo() {
    return TSInfoPB.newBuilder().setUuid(uuid).setRpcAddress(address.toPb()).setName(uuid).build();
  }

  /** @param hook decides the next write (queued; each hook is used once) */
  public void onNextWrite(Hook<WriteRequestPB, WriteResponsePB> hook) {
    nextWrites.add(hook);
  }

  /** @param hook decides every write without a queued hook; null to stop */
  /**
   * Applies the next {@code n} writes but never answers them, as a server whose answer is lost
   * after the write committed: only the caller's deadline ends those calls.
   */
  public void withholdNextWriteAnswers(int n) {
    writesToWithhold.set(n);
  }

  public void onEveryWrite(Hook<WriteRequestPB, WriteResponsePB> hook) {
    everyWrite = hook;
  }

  /** @param hook decides the next scan call (queued; each hook is used once) */
  public void onNextScan(Hook<ScanRequestPB, ScanResponsePB> hook) {
    nextScans.add(hook);
  }

  /** @return how many server-side scanners are open */
  public int openScanners() {
    return scanners.size();
  }

  /** Stops the server: calls to it fail as unreachable. */
  public void stop() {
    stopped = true;
    GrpcServers.stop(server);
  }

  /** @return whether {@link #stop} was called */
  public boolean isStopped() {
    return stopped;
  }

  /**
   * Lists the replicas this server holds, each with its tablet's row count as the estimate and
   * 100 bytes a row as its size on disk.
   */
  @Override
  public void listTablets(ListTabletsRequestPB req, StreamObserver<ListTabletsResponsePB> obs) {
    ListTabletsResponsePB.Builder b = ListTabletsResponsePB.newBuilder();
    for (FakeCluster.FakeTable table : cluster.tables().values()) {
      for (FakeTablet t : table.tablets) {
        if (t.replicas().contains(this)) {
          b.addTablets(ListTabletsResponsePB.StatusPB.newBuilder().setTabletId(t.id())
              .setTableId(table.id).setTableName(table.name).setState("RUNNING")
              .setRole(t.leader() == this ? RaftRolePB.LEADER : RaftRolePB.FOLLOWER)
              .setEstimatedRows(t.rowCount()).setOnDiskBytes(100L * t.rowCount()));
        }
      }
    }
    obs.onNext(b.build());
    obs.onCompleted();
  }

  @Override
  public void write(WriteRequestPB req, StreamObserver<WriteResponsePB> obs) {
    writes.add(req);
    if (writesToWithhold.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      applyWrite(req);
      return;
    }
    try {
      Hook<WriteRequestPB, WriteResponsePB> h = nextWrites.poll();
      if (h == null) {
        h = everyWrite;
      }
      WriteResponsePB r = h == null ? null : h.apply(this, req);
      obs.onNext(r != null ? r : applyWrite(req));
      obs.onCompleted();
    } catch (StatusRuntimeException e) {
      obs.onError(e);
    }
  }

  @Override
  public void scan(ScanRequestPB req, StreamObserver<ScanResponsePB> obs) {
    scans.add(req);
    if (req.hasNewScanRequest()) {
      cluster.scanOpens.add(req.getNewScanRequest());
    }
    try {
      Hook<ScanRequestPB, ScanResponsePB> h = nextScans.poll();
      ScanResponsePB r = h == null ? null : h.apply(this, req);
      obs.onNext(r != null ? r : handleScan(req));
      obs.onCompleted();
    } catch (StatusRuntimeException e) {
      obs.onError(e);
    }
  }

  /** The error if this server cannot serve the tablet, else null. */
  private ErrorPB check(String tabletId) {
    FakeTablet t = cluster.tablet(tabletId);
    if (t == null || !t.replicas.contains(this)) {
      return NyalaException.notFound("tablet '%s' not found on %s", tabletId, uuid).toPb();
    }
    FakeTabletServer leader = t.leader;
    if (leader != this) {
      return cluster.leaderHints
          ? NyalaException.notLeader("replica of tablet " + tabletId + " on " + uuid
              + " is not the leader", leader.uuid, leader.address).toPb()
          : NyalaException.notLeader("replica of tablet " + tabletId + " on " + uuid
              + " is not the leader", "", null).toPb();
    }
    return null;
  }

  /**
   * Handles a write as a leader would: applies it once per (client id, seq_no).
   *
   * @param req the request
   * @return the response
   */
  public WriteResponsePB applyWrite(WriteRequestPB req) {
    ErrorPB e = check(req.getTabletId());
    if (e != null) {
      return WriteResponsePB.newBuilder().setError(e).build();
    }
    FakeTablet t = cluster.tablet(req.getTabletId());
    synchronized (t) {
      String dedupKey = HexFormat.of().formatHex(req.getClientId().toByteArray()) + "/"
          + req.getSeqNo();
      WriteResponsePB cached = t.retryCache.get(dedupKey);
      if (cached != null) {
        return cached;
      }
      Schema schema = Schema.fromPb(req.getSchema());
      List<RowOperations.Op> ops = RowOperations.decode(schema, req.getRowOperations());
      WriteResponsePB.Builder b = WriteResponsePB.newBuilder();
      for (int i = 0; i < ops.size(); i++) {
        ErrorPB rowError = t.apply(schema, ops.get(i));
        if (rowError != null) {
          b.addPerRowErrors(PerRowErrorPB.newBuilder().setRowIndex(i).setError(rowError));
        }
      }
      t.writeIndex++;
      t.appliedWrites++;
      WriteResponsePB resp = b.setWriteIndex(t.writeIndex).build();
      t.retryCache.put(dedupKey, resp);
      return resp;
    }
  }

  private ScanResponsePB handleScan(ScanRequestPB req) {
    if (req.hasNewScanRequest()) {
      return openScan(req);
    }
    FakeScanner s = scanners.get(req.getScannerId());
    if (s == null) {
      return scanError(NyalaException.notFound("scanner '%s' not found on %s",
          req.getScannerId().toStringUtf8(), uuid).toPb());
    }
    ErrorPB e = check(s.tablet.id);
    if (e != null) {
      scanners.remove(s.id);
      return scanError(e);
    }
    if (req.getCallSeqId() != s.lastSeq + 1) {
      return scanError(NyalaException.invalidArgument("scanner %s expected call_seq_id %d, got "
          + "%d", s.id.toStringUtf8(), s.lastSeq + 1, req.getCallSeqId()).toPb());
    }
    s.lastSeq = req.getCallSeqId();
    if (req.getCloseScanner()) {
      scanners.remove(s.id);
      return ScanResponsePB.newBuilder().setSnapIndex(s.snapIndex).build();
    }
    return page(s, req.getBatchSizeRows());
  }

  private ScanResponsePB openScan(ScanRequestPB req) {
    NewScanRequestPB nsr = req.getNewScanRequest();
    ErrorPB e = check(nsr.getTabletId());
    if (e != null) {
      return scanError(e);
    }
    FakeTablet t = cluster.tablet(nsr.getTabletId());
    Schema schema = t.table.schema;
    Schema projection = schema.project(nsr.getProjectedColumnsList());
    int[] projIdx = new int[projection.columnCount()];
    for (int i = 0; i < projIdx.length; i++) {
      projIdx[i] = schema.columnIndex(projection.column(i).name());
    }
    List<ColumnPredicate> preds = new ArrayList<>();
    for (ColumnPredicatePB p : nsr.getPredicatesList()) {
      preds.add(ColumnPredicate.fromPb(schema, p));
    }
    List<Object[]> keysAndRows = new ArrayList<>();
    long snap;
    synchronized (t) {
      NavigableMap<byte[], Object[]> range = t.rows;
      if (!nsr.getStartPrimaryKey().isEmpty()) {
        range = range.tailMap(nsr.getStartPrimaryKey().toByteArray(), true);
      }
      if (!nsr.getStopPrimaryKey().isEmpty()) {
        range = range.headMap(nsr.getStopPrimaryKey().toByteArray(), false);
      }
      for (Map.Entry<byte[], Object[]> en : range.entrySet()) {
        if (preds.stream().allMatch(p -> p.test(schema.column(p.column()).type(),
            en.getValue()[schema.columnIndex(p.column())]))) {
          keysAndRows.add(new Object[] {en.getKey(), en.getValue().clone()});
        }
      }
      snap = nsr.getSnapIndex() > 0 ? nsr.getSnapIndex() : t.writeIndex;
    }
    ByteString id = ByteString.copyFromUtf8(uuid + "-scanner-" + scannerIds.incrementAndGet()
        + "-" + UUID.randomUUID());
    FakeScanner s = new FakeScanner(id, t, projection, projIdx, keysAndRows, nsr.getLimit(),
        snap);
    scanners.put(id, s);
    return page(s, req.getBatchSizeRows());
  }

  private ScanResponsePB page(FakeScanner s, int batchSizeRows) {
    int n = batchSizeRows == 0 ? 100 : batchSizeRows;
    RowBlock block = new RowBlock(s.projection);
    byte[] last = null;
    while (n-- > 0 && s.pos < s.rows.size() && (s.limit == 0 || s.returned < s.limit)) {
      Object[] kr = s.rows.get(s.pos++);
      Object[] full = (Object[]) kr[1];
      Object[] projected = new Object[s.projIdx.length];
      for (int i = 0; i < projected.length; i++) {
        projected[i] = full[s.projIdx[i]];
      }
      block.add(projected);
      last = (byte[]) kr[0];
      s.returned++;
    }
    boolean more = s.pos < s.rows.size() && (s.limit == 0 || s.returned < s.limit);
    if (!more) {
      scanners.remove(s.id);
    }
    ScanResponsePB.Builder b = ScanResponsePB.newBuilder().setData(block.toPb())
        .setHasMoreResults(more).setSnapIndex(s.snapIndex).setProjection(s.projection.toPb());
    if (more) {
      b.setScannerId(s.id);
    }
    if (last != null) {
      b.setLastPrimaryKey(ByteString.copyFrom(last));
    }
    return b.build();
  }

  private static ScanResponsePB scanError(ErrorPB e) {
    return ScanResponsePB.newBuilder().setError(e).build();
  }

  /** An open server-side scanner: the rows matched at open and how far the client got. */
  private static final class FakeScanner {
    final ByteString id;
    final FakeTablet tablet;
    final Schema projection;
    final int[] projIdx;
    /** Entries of {encoded key, full row}. */
    final List<Object[]> rows;
    final long limit;
    final long snapIndex;
    int pos;
    long returned;
    int lastSeq;

    FakeScanner(ByteString id, FakeTablet tablet, Schema projection, int[] projIdx,
        List<Object[]> rows, long limit, long snapIndex) {
      this.id = id;
      this.tablet = tablet;
      this.projection = projection;
      this.projIdx = projIdx;
      this.rows = rows;
      this.limit = limit;
      this.snapIndex = snapIndex;
    }
  }
}
