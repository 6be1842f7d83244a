package io.nyala.client;

/**
 * A table's size as its tablet servers report it: Kudu's {@code getTableStatistics(table)}
 * (docs/architecture.md, "Client statistics").
 *
 * @param tableName the table's name
 * @param liveRowCount the sum over the table's tablets of each leader's estimate of its live
 *     rows (a tablet without a reachable leader counts with its largest replica's estimate);
 *     an estimate, not a scan: writes in flight may or may not be in it
 * @param onDiskBytes the sum, counted as the row count is, of the bytes each tablet has flushed
 *     to disk (its disk layers; rows still in memory count nothing, and a hibernated replica
 *     reports 0)
 * @param numTablets the table's tablets
 * @param tabletsCounted of those, the tablets some replica reported; fewer than
 *     {@code numTablets} when a tablet server could not be asked
 */
public record TableStatistics(String tableName, long liveRowCount, long onDiskBytes,
    int numTablets, int tabletsCounted) {}
