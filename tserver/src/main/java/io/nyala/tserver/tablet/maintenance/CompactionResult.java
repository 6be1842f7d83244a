package io.nyala.tserver.tablet.maintenance;

/**
 * What one compaction rewrote, for the log line and the maintenance metrics.
 *
 * @param rowsetsIn rowsets whose layers were read (1 for a delta compaction)
 * @param rowsetsOut rowsets those became (0 when everything in them was garbage)
 * @param layersIn on-disk layers read; {@code layersOut} written (0 or 1)
 * @param bytesIn on-disk bytes of the layers read; {@code bytesOut} of the layer written
 */
public record CompactionResult(Kind kind, int rowsetsIn, int rowsetsOut, int layersIn,
    int layersOut, long bytesIn, long bytesOut) {

  /** Which kind of compaction ({@link CompactionPolicy}). */
  public enum Kind {
    /** Several rowsets (all their on-disk layers) into one. */
    MERGE_ROWSETS,
    /** One rowset's base and deltas into a new base. */
    MAJOR_DELTA,
    /** One rowset's deltas into one delta; its base is untouched. */
    MINOR_DELTA
  }
}
