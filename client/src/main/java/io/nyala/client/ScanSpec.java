package io.nyala.client;

import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.row.ColumnPredicate;
import io.nyala.common.schema.Schema;
import java.util.List;

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
 */
record ScanSpec(List<String> projectedColumns, Schema projection,
    List<ColumnPredicate> predicates, List<ColumnPredicatePB> predicatePbs, byte[] startKey,
    byte[] stopKey, long limit, int batchSizeRows, ReadMode readMode, long timeoutMs,
    long batchSizeBytes) {}
