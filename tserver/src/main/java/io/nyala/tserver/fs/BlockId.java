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

  /**
   * Whether {@code name} is {@code digits} lowercase hex digits, as the block managers name
   * the files they write (block files, containers, fan-out dirs): anything else is not theirs.
   */
  public static boolean isHexName(String name, int digits) {
    return name.length() == digits
        && name.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  }
}
