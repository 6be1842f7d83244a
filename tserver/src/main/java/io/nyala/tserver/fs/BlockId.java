package io.nyala.tserver.fs;

/**
 * A 64-bit block id. Ids are never reused: a block manager hands them out from a persisted
 * high-water mark, so an id deleted before a crash cannot name a different block after it.
 */
public record BlockId(long value) implements Comparable<BlockId> {
  @Override
  public int compareTo(BlockId o) {
    return Long.compareUnsigned(value, o.value);
  }

  /** Sixteen hex digits, as in error messages and file dumps. */
  @Override
  public String toString() {
    return String.format("%016x", value);
  }
}
