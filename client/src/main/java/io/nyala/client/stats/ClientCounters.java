package io.nyala.client.stats;

import io.nyala.common.StatusCode;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one client (docs/architecture.md, "Client statistics"). The write path
 * ({@code WriteBatch}), the scan path ({@code TabletScan}) and the tablet RPC retry loop
 * ({@code TabletCaller}) update them where the work happens; nothing else counts.
 *
 * <p>Thread-safe and lock-free: every figure is a {@link LongAdder}, and a tablet's counters are
 * made on the first call to it and kept for the client's life, so an update allocates nothing.
 * Counters only grow; a reader sees each one at some moment, not all at one moment.
 *
 * <p>Not API: an application reads them as a {@code ClientStatistics} snapshot.
 */
public final class ClientCounters {
  /** The counters of one tablet, as this client called it. */
  public static final class Tablet {
    private final LongAdder ops = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder retries = new LongAdder();

    /** @return write operations sent to the tablet that got an answer or failed for good */
    public long ops() {
      return ops.sum();
    }

    /** @return of those, operations that ended with an error */
    public long errors() {
      return errors.sum();
    }

    /** @return RPC attempts to the tablet that were retried */
    public long retries() {
      return retries.sum();
    }
  }

  private final LongAdder writeOpsApplied = new LongAdder();
  private final LongAdder writeOpsAcknowledged = new LongAdder();
  private final LongAdder writeRowErrors = new LongAdder();
  private final LongAdder writeBytesSent = new LongAdder();
  private final LongAdder scannersOpened = new LongAdder();
  private final LongAdder scanRowsReturned = new LongAdder();
  private final LongAdder scanBytesReturned = new LongAdder();
  private final LongAdder rpcCalls = new LongAdder();
  private final LongAdder rpcRetries = new LongAdder();
  /** Failed attempts by the failure's status code, indexed by {@link StatusCode#ordinal()}. */
  private final LongAdder[] rpcFailures = new LongAdder[StatusCode.values().length];
  /** By tablet id; entries are never removed, a tablet's ids are never reused. */
  private final Map<String, Tablet> tablets = new ConcurrentHashMap<>();

  /** Counters at zero. */
  public ClientCounters() {
    for (int i = 0; i < rpcFailures.length; i++) {
      rpcFailures[i] = new LongAdder();
    }
  }

  /**
   * A flush handed operations to the write path.
   *
   * @param ops how many
   */
  public void writesApplied(int ops) {
    writeOpsApplied.add(ops);
  }

  /**
   * One attempt of a write request is being sent.
   *
   * @param bytes the request's serialized size
   */
  public void writeSent(int bytes) {
    writeBytesSent.add(bytes);
  }

  /**
   * A flush ended: every one of its operations has its response.
   *
   * @param acknowledged operations applied without a row error
   * @param rowErrors operations that ended with an error, wherever it came from
   */
  public void writesFinished(int acknowledged, int rowErrors) {
    writeOpsAcknowledged.add(acknowledged);
    writeRowErrors.add(rowErrors);
  }

  /**
   * A tablet answered a write request, or the request failed for good.
   *
   * @param tabletId the tablet written
   * @param rows the request's rows
   * @param rowErrors how many of them ended with an error (all of them if the request failed)
   */
  public void tabletWritten(String tabletId, int rows, int rowErrors) {
    Tablet t = tablet(tabletId);
    t.ops.add(rows);
    t.errors.add(rowErrors);
  }

  /** A server-side scanner was opened (a reopen after a failover counts again). */
  public void scannerOpened() {
    scannersOpened.increment();
  }

  /**
   * A scan page arrived.
   *
   * @param rows its rows
   * @param bytes its encoded row data's size
   */
  public void scanPage(int rows, int bytes) {
    scanRowsReturned.add(rows);
    scanBytesReturned.add(bytes);
  }

  /** One tablet RPC attempt is being sent. */
  public void rpcSent() {
    rpcCalls.increment();
  }

  /**
   * A tablet RPC attempt failed.
   *
   * @param code the failure's status code
   */
  public void rpcFailed(StatusCode code) {
    rpcFailures[code.ordinal()].increment();
  }

  /**
   * A tablet RPC is retried after a failed attempt.
   *
   * @param tabletId the tablet called, or null when its location was not known yet
   */
  public void rpcRetried(String tabletId) {
    rpcRetries.increment();
    if (tabletId != null) {
      tablet(tabletId).retries.increment();
    }
  }

  private Tablet tablet(String id) {
    Tablet t = tablets.get(id);
    return t != null ? t : tablets.computeIfAbsent(id, k -> new Tablet());
  }

  /** @return operations handed to the write path */
  public long writeOpsApplied() {
    return writeOpsApplied.sum();
  }

  /** @return operations a tablet applied without a row error */
  public long writeOpsAcknowledged() {
    return writeOpsAcknowledged.sum();
  }

  /** @return operations that ended with an error */
  public long writeRowErrors() {
    return writeRowErrors.sum();
  }

  /** @return serialized bytes of write requests sent, every attempt counted */
  public long writeBytesSent() {
    return writeBytesSent.sum();
  }

  /** @return server-side scanners opened */
  public long scannersOpened() {
    return scannersOpened.sum();
  }

  /** @return rows scans returned */
  public long scanRowsReturned() {
    return scanRowsReturned.sum();
  }

  /** @return encoded row bytes scans returned */
  public long scanBytesReturned() {
    return scanBytesReturned.sum();
  }

  /** @return tablet RPC attempts sent */
  public long rpcCalls() {
    return rpcCalls.sum();
  }

  /** @return tablet RPCs retried after a failed attempt */
  public long rpcRetries() {
    return rpcRetries.sum();
  }

  /**
   * @param code a status code
   * @return failed tablet RPC attempts with that code
   */
  public long rpcFailures(StatusCode code) {
    return rpcFailures[code.ordinal()].sum();
  }

  /** @return the counters of every tablet called so far, by tablet id; a live view */
  public Map<String, Tablet> tablets() {
    return tablets;
  }
}
