package io.nyala.client;

import io.nyala.common.schema.Schema;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/** One page of scan results. Iterate it once, with a for-each loop or as an iterator. */
public final class RowResultIterator implements Iterator<RowResult>, Iterable<RowResult> {
  private static final RowResultIterator EMPTY = new RowResultIterator(null, List.of());

  private final Schema projection;
  private final List<Object[]> rows;
  private int next;

  RowResultIterator(Schema projection, List<Object[]> rows) {
    this.projection = projection;
    this.rows = rows;
  }

  static RowResultIterator empty() {
    return EMPTY;
  }

  /** A page of only the first {@code n} rows, for a limit a server overshot. */
  RowResultIterator truncate(int n) {
    return new RowResultIterator(projection, rows.subList(0, n));
  }

  /** @return the number of rows in this page */
  public int getNumRows() {
    return rows.size();
  }

  @Override
  public boolean hasNext() {
    return next < rows.size();
  }

  @Override
  public RowResult next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no more rows in this page");
    }
    return new RowResult(projection, rows.get(next++));
  }

  /** @return this iterator, so a page can be used in a for-each loop */
  @Override
  public Iterator<RowResult> iterator() {
    return this;
  }
}
