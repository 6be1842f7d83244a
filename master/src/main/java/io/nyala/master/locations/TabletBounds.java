package io.nyala.master.locations;

import com.google.protobuf.ByteString;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The partition-key ranges of one table's tablets at one locations version, in key order: what
 * a cache needs to tell which requests share an answer. A lookup from any key returns the
 * tablets from the one that contains the key, or, when the key falls in a gap between tablets,
 * from the next one; so requests that differ only in a start key with the same
 * {@link #firstFrom first tablet} get the same answer. Immutable.
 */
final class TabletBounds {
  private static final Comparator<ByteString> ORDER =
      ByteString.unsignedLexicographicalComparator();
  /** One tablet's partition-key range; an empty end is unbounded. */
  record Range(ByteString start, ByteString end) {}

  /** Per tablet, in start order (columns of the ranges, for binary search). */
  private final ByteString[] starts;
  private final ByteString[] ends;

  /** @param ranges the table's tablets, ordered by start, not overlapping */
  TabletBounds(List<Range> ranges) {
    starts = ranges.stream().map(Range::start).toArray(ByteString[]::new);
    ends = ranges.stream().map(Range::end).toArray(ByteString[]::new);
  }

  /**
   * The start of the first tablet a lookup from {@code key} returns, or null if none does (the
   * key is past the last tablet). Matches {@link TableLocationsLookup}'s choice of tablets.
   */
  ByteString firstFrom(ByteString key) {
    int i = Arrays.binarySearch(starts, key, ORDER);
    if (i >= 0) {
      return starts[i];
    }
    int floor = -i - 2; // the last tablet that starts before the key, -1 if none does
    if (floor >= 0 && (ends[floor].isEmpty() || ORDER.compare(ends[floor], key) > 0)) {
      return starts[floor];
    }
    return floor + 1 < starts.length ? starts[floor + 1] : null;
  }

  /** Bytes held, roughly: the keys and their references. */
  long weight() {
    long bytes = 64;
    for (int i = 0; i < starts.length; i++) {
      bytes += 2 * 40 + starts[i].size() + ends[i].size();
    }
    return bytes;
  }
}
