package io.nyala.client;

import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.Schema;
import java.util.List;
import java.util.Map;

/**
 * What a scanner reads, as checked and encoded by {@link ScannerBuilder}.
 *
 * @param projectedColumns names to return, empty for all columns
 * @param projection the projection's schema, for decoding rows
 * @param predicates predicates bound to the table's schema
 * @param predicatePbs the same on the wire
 * @param startKey encoded inclusive lower primary key bound, empty for none
 * @param stopKey encoded exclusive upper primary key bound, empty for none
 * @param limit the most rows to return over all tablets
 * @param batchSizeRows rows per page, 0 for the server's default
 * @param readMode the read mode
 * @param timeoutMs the time allowed for each page, retries included
 * @param batchSizeBytes the most row bytes per page (plus one row), 0 for the server's default
 * @param snapshot with READ_AT_SNAPSHOT, the Raft index to read each tablet at, by tablet id;
 *     empty to let each tablet pick its own
 * @param minApplied with READ_YOUR_WRITES, write indexes to wait for by tablet id, besides the
 *     client's own
 * @param partitionKeyStart the partition key the scan starts at (a scan token's tablet)
 * @param partitionKeyEnd the partition key it ends before, empty for the table's end
 */
record ScanSpec(List<String> projectedColumns, Schema projection,
    List<ColumnPredicate> predicates, List<ColumnPredicatePB> predicatePbs, byte[] startKey,
    byte[] stopKey, long limit, int batchSizeRows, ReadMode readMode, long timeoutMs,
    long batchSizeBytes, Map<String, Long> snapshot, Map<String, Long> minApplied,
    byte[] partitionKeyStart, byte[] partitionKeyEnd) {}
