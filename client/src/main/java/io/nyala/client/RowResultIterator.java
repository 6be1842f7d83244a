package io.nyala.client;

import io.nyala.common.row.ColumnarRows;
import java.util.Iterator;
import java.util.NoSuchElementException;

/** One page of scan results. Iterate it once, with a for-each loop or as an iterator. */
public final class RowResultIterator implements Iterator<RowResult>, Iterable<RowResult> {
  private static final RowResultIterator EMPTY = new RowResultIterator(null, 0);

  /** The page's rows, column by column; null when empty. */
  private final ColumnarRows rows;
  /** How many of them this iterator returns. */
  private final int count;
  private int next;

  RowResultIterator(ColumnarRows rows) {
    this(rows, rows.numRows());
  }

  private RowResultIterator(ColumnarRows rows, int count) {
    this.rows = rows;
    this.count = count;
  }

  static RowResultIterator empty() {
    return EMPTY;
  }

  /** A page of only the first {@code n} rows, for a limit a server overshot. */
  RowResultIterator truncate(int n) {
    return new RowResultIterator(rows, n);
  }

  /** @return the number of rows in this page */
  public int getNumRows() {
    return count;
  }

  @Override
  public boolean hasNext() {
    return next < count;
  }

  @Override
  public RowResult next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more rows in this page");
    }
    return new RowResult(rows, next++);
  }

  /** @return this iterator, so a page can be used in a for-each loop */
  @Override
  public Iterator<RowResult> iterator() {
    return this;
  }
}
