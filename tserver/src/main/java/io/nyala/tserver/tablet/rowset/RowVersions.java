package io.nyala.tserver.tablet.rowset;

/**
 * The retained versions of one row key, newest first. The array is replaced, never mutated, so
 * scans read it without locks while the single writer installs new versions.
 */
public final class RowVersions {
  /** One version: the Raft index that wrote it and the full row, or null for a deletion. */
  public record Version(long index, Object[] row) {
    public boolean isTombstone() {
      return row == null;
    }
  }

  /** Newest first; written only by the store's writer (under its lock). */
  private volatile Version[] versions;

  public RowVersions(Version first) {
    this.versions = new Version[] {first};
  }

  public RowVersions(Version[] versions) {
    this.versions = versions;
  }

  public Version[] all() {
    return versions;
  }

  /** The newest version, tombstone or not. */
  public Version newest() {
    return versions[0];
  }

  /** The newest version written at or before {@code snapshot}, or null. */
  public Version visibleAt(long snapshot) {
    for (Version v : versions) {
      if (v.index() <= snapshot) {
        return v;
      }
    }
    return null;
  }

  /** Installs {@code v} as the newest; a version of the same index replaces it (same batch). */
  public void push(Version v) {
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
   * at or before the horizon, and that one too if it is a deletion and {@code dropTombstone}.
   * Returns false when nothing remains (the key can go).
   */
  public boolean prune(long horizon, boolean dropTombstone) {
    Version[] cur = versions;
    int keep = prunedLength(cur, horizon, dropTombstone);
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

  /**
   * How many of {@code vs} (newest first) a reader at or after {@code horizon} may need. A
   * deletion at the horizon is needed only when an older layer could still hold the key
   * ({@code dropTombstone} false), since it hides that layer's versions.
   */
  public static int prunedLength(Version[] vs, long horizon, boolean dropTombstone) {
    for (int i = 0; i < vs.length; i++) {
      if (vs[i].index() <= horizon) {
        return vs[i].isTombstone() && dropTombstone ? i : i + 1;
      }
    }
    return vs.length;
  }
}
