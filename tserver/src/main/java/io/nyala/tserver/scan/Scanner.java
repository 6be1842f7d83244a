package io.nyala.tserver.scan;

import io.nyala.common.NyalaException;
import io.nyala.tserver.tablet.ScanPage;
import io.nyala.tserver.tablet.TabletScanSpec;
import io.nyala.tserver.tablet.TabletStore;
import java.util.HexFormat;

/**
 * An open scan: the store and pinned snapshot it reads, where the next page resumes, the rows the
 * limit still allows and the sequence number the next call must carry. Calls on one scanner are
 * serialised by its monitor.
 */
public final class Scanner {
  private final byte[] id;
  private final String tabletId;
  private final TabletStore store;
  private final TabletScanSpec spec;
  /** Rows the limit still allows (Long.MAX_VALUE = no limit). */
  private long remaining;
  /** Encoded key of the last row returned; null before the first page. */
  private byte[] resumeAfter;
  private int expectedSeq;
  private boolean released;
  /** The manager's monotonic clock at the last call. */
  private volatile long lastAccessNanos;

  Scanner(byte[] id, String tabletId, TabletStore store, TabletScanSpec spec, long limit,
      long nowNanos) {
    this.lastAccessNanos = nowNanos;
    this.id = id;
    this.tabletId = tabletId;
    this.store = store;
    this.spec = spec;
    this.remaining = limit <= 0 ? Long.MAX_VALUE : limit;
  }

  public byte[] id() {
    return id.clone();
  }

  public String idHex() {
    return HexFormat.of().formatHex(id);
  }

  public String tabletId() {
    return tabletId;
  }

  public TabletScanSpec spec() {
    return spec;
  }

  void touch(long nowNanos) {
    lastAccessNanos = nowNanos;
  }

  long lastAccessNanos() {
    return lastAccessNanos;
  }

  /** Checks and advances the call sequence: each call carries the next number. */
  public synchronized void checkSeq(int seq) {
    if (seq != expectedSeq) {
      throw NyalaException.invalidArgument("scanner %s: call_seq_id %d, expected %d",
          idHex(), seq, expectedSeq);
    }
    expectedSeq++;
  }

  /**
   * Reads the next page of at most {@code batchRows} rows (fewer when the limit says so), ending
   * with the row that brings it to {@code batchBytes}.
   */
  public synchronized ScanPage nextPage(int batchRows, long batchBytes) {
    if (released) {
      throw NyalaException.notFound("scanner %s not found or expired", idHex());
    }
    if (remaining == 0) {
      return new ScanPage(java.util.List.of(), resumeAfter, false);
    }
    int max = (int) Math.min(Math.max(1, batchRows), remaining);
    ScanPage page = store.scan(spec, resumeAfter, max, Math.max(1, batchBytes));
    remaining -= page.rows().size();
    if (page.lastKey() != null) {
      resumeAfter = page.lastKey();
    }
    boolean more = page.hasMore() && remaining > 0;
    return new ScanPage(page.rows(), page.lastKey(), more);
  }

  /** Releases the snapshot pin; idempotent. */
  synchronized void release() {
    if (!released) {
      released = true;
      store.unpin(spec.snapshot());
    }
  }
}
