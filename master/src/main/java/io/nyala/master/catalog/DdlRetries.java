package io.nyala.master.catalog;

import io.nyala.common.proto.metadata.SysTableEntryPB;

/**
 * Recognizes a retried DDL request whose first attempt took effect but whose answer was lost (an
 * attempt timed out, the leader changed): the client sends one request id with every attempt of
 * a call, and the catalog keeps the id of a table's create and of its last alter on the table,
 * and that of its delete on its tombstone. Such a retry is answered as its first attempt was,
 * instead of with ALREADY_PRESENT, "column already exists" or NOT_FOUND.
 */
final class DdlRetries {
  private DdlRetries() {}

  /** True if {@code requestId} is set and is the one {@code recorded}. */
  static boolean isRetryOf(String requestId, String recorded) {
    return !requestId.isEmpty() && requestId.equals(recorded);
  }

  /** The table the alter {@code requestId} was last applied to, or null. */
  static SysTableEntryPB altered(CatalogState s, String requestId) {
    if (requestId.isEmpty()) {
      return null;
    }
    for (SysTableEntryPB t : s.tables()) {
      if (requestId.equals(t.getLastAlterRequestId())) {
        return t;
      }
    }
    return null;
  }

  /** The tombstone of the table the delete {@code requestId} removed, or null. */
  static SysTableEntryPB deleted(CatalogState s, String requestId) {
    if (requestId.isEmpty()) {
      return null;
    }
    for (SysTableEntryPB t : s.removedTables()) {
      if (requestId.equals(t.getDeleteRequestId())) {
        return t;
      }
    }
    return null;
  }
}
