package io.nyala.tserver.tablet;

/**
 * The retained versions of one row key, newest first. The array is replaced, never mutated, so
 * scans read it without locks while the single writer installs new versions.
 */
final class RowVersions {
  /** One version: the Raft index that wrote it and the full row, or null for a deletion. */
  record Version(long index, Object[] row) {
    boolean isTombstone() {
      return row == null;
    }
  }

  /** Newest first; written only by the store's writer (under its lock). */
  private volatile Version[] versions;

  RowVersions(Version first) {
    this.versions = new Version[] {first};
  }

  RowVersions(Version[] versions) {
    this.versions = versions;
  }

  Version[] all() {
    return versions;
  }

  /** The newest version, tombstone or not. */
  Version newest() {
    return versions[0];
  }

  /** The newest version written at or before {@code snapshot}, or null. */
  Version visibleAt(long snapshot) {
    for (Version v : versions) {
      if (v.index() <= snapshot) {
        return v;
      }
    }
    return null;
  }

  /** Installs {@code v} as the newest; a version of the same index replaces it (same batch). */
  void push(Version v) {
    Version[] cur = versions;
    if (cur[0].index() == v.index()) {
      Version[] next = cur.clone();
      next[0] = v;
      versions = next;
      return;
    }
    Version[] next = new Version[cur.length + 1];
    next[0] = v;
    System.arraycopy(cur, 0, next, 1, cur.length);
    versions = next;
  }

  /**
   * Drops what no reader at or after {@code horizon} can see: versions older than the newest one
   * at or before the horizon, and that one too if it is a deletion. Returns false when nothing
   * remains (the key can go).
   */
  boolean prune(long horizon) {
    Version[] cur = versions;
    int keep = cur.length;
    for (int i = 0; i < cur.length; i++) {
      if (cur[i].index() <= horizon) {
        keep = cur[i].isTombstone() ? i : i + 1;
        break;
      }
    }
    if (keep == 0) {
      return false;
    }
    if (keep < cur.length) {
      Version[] next = new Version[keep];
      System.arraycopy(cur, 0, next, 0, keep);
      versions = next;
    }
    return true;
  }

  /** Rewrites every version's row into a newer schema (tombstones stay tombstones). */
  void convert(SchemaChange change) {
    Version[] cur = versions;
    Version[] next = new Version[cur.length];
    for (int i = 0; i < cur.length; i++) {
      Version v = cur[i];
      next[i] = v.isTombstone() ? v : new Version(v.index(), change.convert(v.row()));
    }
    versions = next;
  }
}
