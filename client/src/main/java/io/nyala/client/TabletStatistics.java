package io.nyala.client;

/**
 * What one client did with one tablet, part of a {@link ClientStatistics} snapshot.
 *
 * @param tabletId the tablet's id
 * @param ops write operations sent to it that got an answer or failed for good
 * @param errors of those, operations that ended with an error
 * @param retries RPCs to it (writes and scans) that were retried after a failed attempt
 */
public record TabletStatistics(String tabletId, long ops, long errors, long retries) {}
