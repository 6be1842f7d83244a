package io.nyala.client;

import io.nyala.common.NyalaException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * A snapshot of a table: the Raft index each tablet is read at. Nyala's MVCC clock is each
 * tablet's Raft index, so a snapshot over several tablets is one index per tablet, chosen by a
 * linearizable read of each tablet's leader; see docs/architecture.md, "Consistent reads", for
 * what it guarantees (every write acknowledged before it was chosen, no cross-tablet
 * atomicity). Immutable.
 *
 * @param indexes the Raft index of each tablet, by tablet id
 */
public record ScanSnapshot(Map<String, Long> indexes) {
  /**
   * Checks and copies the indexes.
   *
   * @param indexes Raft indexes by tablet id; 0 is a tablet's first entry, before any write
   */
  public ScanSnapshot {
    for (Map.Entry<String, Long> e : indexes.entrySet()) {
      if (e.getValue() == null || e.getValue() < 0) {
        throw NyalaException.invalidArgument("snapshot index of tablet %s must not be negative, "
            + "got %s", e.getKey(), e.getValue());
      }
    }
    indexes = Map.copyOf(indexes);
  }

  /**
   * The snapshot the tokens of one READ_AT_SNAPSHOT build share.
   *
   * @param tokens scan tokens
   * @return each READ_AT_SNAPSHOT token's tablet and index
   */
  public static ScanSnapshot of(Collection<NyalaScanToken> tokens) {
    Map<String, Long> m = new HashMap<>();
    for (NyalaScanToken t : tokens) {
      if (t.readMode() == ReadMode.READ_AT_SNAPSHOT) {
        m.put(t.tabletId(), t.snapshotIndex());
      }
    }
    return new ScanSnapshot(m);
  }
}
