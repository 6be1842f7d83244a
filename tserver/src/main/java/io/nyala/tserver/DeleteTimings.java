package io.nyala.tserver;

/**
 * Where a {@link TabletManager#deleteTablet} spent its time (ns): persisting the DELETING mark,
 * removing the Raft group (Ratis closes the division and deletes its log), deleting the store's
 * blocks and superblock, then the group directory and metadata files.
 */
public record DeleteTimings(long markNanos, long groupNanos, long blocksNanos,
    long filesNanos) {
  public long totalNanos() {
    return markNanos + groupNanos + blocksNanos + filesNanos;
  }

  @Override
  public String toString() {
    return String.format("%.1f ms: mark DELETING %.1f ms, group removal %.1f ms, block deletion "
        + "%.1f ms, files %.1f ms", totalNanos() / 1e6, markNanos / 1e6, groupNanos / 1e6,
        blocksNanos / 1e6, filesNanos / 1e6);
  }
}
