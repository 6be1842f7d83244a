package io.nyala.client;

import io.nyala.client.locations.RemoteTablet;
import io.nyala.client.rpc.Deadline;
import io.nyala.common.NyalaException;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a table's matching rows page by page, tablet after tablet in partition key order. Rows
 * of one tablet come in primary key order; the limit applies over all tablets. Each page is
 * fetched within the scan timeout, retries and leader changes included.
 *
 * <p>Thread-safe, but pages are fetched one at a time: call {@link #nextRows()} again only after
 * the previous future completed. {@link #close()} releases the open server-side scanner early.
 *
 * <p>A scanner built with {@link ScannerBuilder#prefetching(boolean) prefetching(true)} asks for
 * the next page as soon as a page arrives and more may follow, so the servers build it (and this
 * client decodes it) while the application reads the page it has (docs/performance.md,
 * "Scans"). At most one page is prefetched. Off by default: a prefetched page was read before
 * anything that happens after it arrives, such as an ALTER that drops a projected column, which
 * a scanner without prefetching reports on its next page.
 */
public final class AsyncNyalaScanner {
  private final NyalaTable table;
  private final ScanSpec spec;
  private final PartitionPruner pruner;
  /** Start of the next tablet to scan; null when every tablet has been reached. */
  private byte[] nextPartitionKey;
  private TabletScan current;
  private long rowsReturned;
  private int tabletsScanned;
  private boolean inFlight;
  private boolean closed;
  private boolean prefetching;
  /** The next page, asked for before the application asked; null when none is. */
  private CompletableFuture<RowResultIterator> prefetched;

  AsyncNyalaScanner(NyalaTable table, ScanSpec spec) {
    this.table = table;
    this.spec = spec;
    this.nextPartitionKey = spec.partitionKeyStart();
    this.pruner = PartitionPruner.create(table.getSchema(), table.getPartitionSchema(),
        spec.predicates());
  }

  /** Turns prefetching on or off; call before the first {@link #nextRows()}. */
  synchronized AsyncNyalaScanner prefetching(boolean on) {
    this.prefetching = on;
    return this;
  }

  /** @return the table being scanned */
  public NyalaTable getTable() {
    return table;
  }

  /** @return the columns of the returned rows */
  public io.nyala.common.schema.Schema getProjectionSchema() {
    return spec.projection();
  }

  /** @return how many rows have been returned so far */
  public synchronized long getRowsReturned() {
    return rowsReturned;
  }

  /**
   * How many tablets the scan has opened so far: tablets the partition pruner skipped (see
   * docs/architecture.md, "Partitioning") are not counted.
   *
   * @return the number of tablets opened
   */
  public synchronized int getTabletsScanned() {
    return tabletsScanned;
  }

  /** @return whether more rows may follow (a page may still turn out empty) */
  public synchronized boolean hasMoreRows() {
    return !closed && prefetched != null || hasMoreToFetch();
  }

  private synchronized boolean hasMoreToFetch() {
    return !closed && rowsReturned < spec.limit()
        && ((current != null && current.hasMore()) || nextPartitionKey != null);
  }

  /**
   * Fetches the next page of rows. Tablets with no matching rows are skipped, so a page is empty
   * only when the scan is over.
   *
   * @return the page; fails with the server's error, or TIMED_OUT naming the tablet
   */
  public CompletableFuture<RowResultIterator> nextRows() {
    CompletableFuture<RowResultIterator> page;
    synchronized (this) {
      if (inFlight) {
        return CompletableFuture.failedFuture(NyalaException.illegalState(
            "nextRows() called before the previous call completed"));
      }
      if (!hasMoreRows()) {
        return CompletableFuture.completedFuture(RowResultIterator.empty());
      }
      inFlight = true;
      page = prefetched;
      prefetched = null;
    }
    if (page == null) {
      page = fetch(Deadline.after(spec.timeoutMs()));
    }
    return page.whenComplete((p, err) -> {
      synchronized (this) {
        inFlight = false;
        if (err == null && prefetching && hasMoreToFetch()) {
          prefetched = fetch(Deadline.after(spec.timeoutMs()));
        }
      }
    });
  }

  private CompletableFuture<RowResultIterator> fetch(Deadline deadline) {
    TabletScan scan;
    byte[] next;
    long wanted;
    synchronized (this) {
      scan = current;
      next = nextPartitionKey;
      wanted = spec.limit() - rowsReturned;
    }
    CompletableFuture<RowResultIterator> page;
    if (scan != null && scan.hasMore()) {
      page = scan.next(wanted, deadline);
    } else {
      page = client().locations(table).lookupAtOrAfter(next, deadline)
          .thenCompose(tablet -> openTablet(tablet, wanted, deadline));
    }
    return page.thenCompose(p -> {
      RowResultIterator accepted = accept(p);
      if (accepted.getNumRows() > 0 || !hasMoreToFetch()) {
        return CompletableFuture.completedFuture(accepted);
      }
      return fetch(deadline);
    });
  }

  private CompletableFuture<RowResultIterator> openTablet(RemoteTablet tablet, long wanted,
      Deadline deadline) {
    if (tablet == null) {
      synchronized (this) {
        nextPartitionKey = null;
        current = null;
      }
      return CompletableFuture.completedFuture(RowResultIterator.empty());
    }
    byte[] end = tablet.partitionKeyEnd();
    TabletScan scan = null;
    if (!pruner.prunes(tablet)) {
      scan = new TabletScan(client(), table, spec, tablet);
    }
    synchronized (this) {
      nextPartitionKey = end.length == 0 || reachedEnd(end) ? null : end;
      current = scan;
      tabletsScanned += scan == null ? 0 : 1;
    }
    return scan == null ? CompletableFuture.completedFuture(RowResultIterator.empty())
        : scan.open(wanted, deadline);
  }

  /** Whether a tablet ending at {@code end} is the last one a scan token's range covers. */
  private boolean reachedEnd(byte[] end) {
    byte[] stop = spec.partitionKeyEnd();
    return stop.length > 0 && Arrays.compareUnsigned(end, stop) >= 0;
  }

  /** Counts a page against the limit, trimming it if a server returned too many rows. */
  private RowResultIterator accept(RowResultIterator page) {
    TabletScan toClose = null;
    RowResultIterator out = page;
    synchronized (this) {
      long wanted = spec.limit() - rowsReturned;
      if (page.getNumRows() > wanted) {
        out = page.truncate((int) wanted);
      }
      rowsReturned += out.getNumRows();
      if (rowsReturned >= spec.limit()) {
        toClose = current;
      }
    }
    if (toClose != null) {
      toClose.close();
    }
    return out;
  }

  private AsyncNyalaClient client() {
    return table.getAsyncClient();
  }

  /**
   * Ends the scan early, releasing the open server-side scanner (best effort).
   *
   * @return completes once the release is sent
   */
  public CompletableFuture<Void> close() {
    TabletScan scan;
    CompletableFuture<RowResultIterator> pending;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.completedFuture(null);
      }
      closed = true;
      scan = current;
      pending = prefetched;
      prefetched = null;
    }
    if (pending != null) {
      // The prefetch's call owns the tablet scan until it answers; close whichever it left open.
      pending.whenComplete((p, err) -> closeCurrent());
    } else if (scan != null) {
      scan.close();
    }
    return CompletableFuture.completedFuture(null);
  }

  private void closeCurrent() {
    TabletScan scan;
    synchronized (this) {
      scan = current;
    }
    if (scan != null) {
      scan.close();
    }
  }
}
