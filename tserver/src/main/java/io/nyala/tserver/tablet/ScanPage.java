package io.nyala.tserver.tablet;

import java.util.List;

/**
 * One page of a scan: rows in the projection's column order, the encoded key of the last row
 * read (to resume after it) and whether rows may remain.
 */
public record ScanPage(List<Object[]> rows, byte[] lastKey, boolean hasMore) {}
