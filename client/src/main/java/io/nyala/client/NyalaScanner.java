package io.nyala.client;

import io.nyala.common.schema.Schema;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The blocking form of {@link AsyncNyalaScanner}: page through with {@link #hasMoreRows()} and
 * {@link #nextRows()}, or iterate all rows with a for-each loop. Close it if you stop early.
 * Not thread-safe.
 */
public final class NyalaScanner implements Iterable<RowResult>, AutoCloseable {
  private final AsyncNyalaScanner async;

  NyalaScanner(AsyncNyalaScanner async) {
    this.async = async;
  }

  /** @return whether more rows may follow */
  public boolean hasMoreRows() {
    return async.hasMoreRows();
  }

  /**
   * Fetches the next page.
   *
   * @return the page, empty only at the end of the scan
   * @throws io.nyala.common.NyalaException the server's error, or TIMED_OUT naming the tablet
   */
  public RowResultIterator nextRows() {
    return Sync.join(async.nextRows());
  }

  /** @return the columns of the returned rows */
  public Schema getProjectionSchema() {
    return async.getProjectionSchema();
  }

  /** @return the asynchronous scanner underneath */
  public AsyncNyalaScanner getAsyncScanner() {
    return async;
  }

  /**
   * Iterates every remaining row, fetching pages as needed. Errors are thrown from
   * {@code hasNext()} as {@link io.nyala.common.NyalaException}.
   *
   * @return the iterator
   */
  @Override
  public Iterator<RowResult> iterator() {
    return new Iterator<>() {
      private RowResultIterator page;

      @Override
      public boolean hasNext() {
        while (page == null || !page.hasNext()) {
          if (!hasMoreRows()) {
            return false;
          }
          page = nextRows();
        }
        return true;
      }

      @Override
      public RowResult next() {
        if (!hasNext()) {
          throw new NoSuchElementException("the scan has no more rows");
        }
        return page.next();
      }
    };
  }

  /** Ends the scan, releasing the open server-side scanner. Idempotent. */
  @Override
  public void close() {
    Sync.join(async.close());
  }
}
