package io.nyala.tserver.fs.log;

import io.nyala.common.env.RandomReadFile;

/**
 * Where replay reads a metadata file from. Both replay modes run the same parser over a
 * source, which is what makes their block maps and repairs identical by construction.
 */
interface RecordSource {
  long size();

  /**
   * Returns {@code len} bytes at {@code pos}, in {@code buf} (which it may ignore and return
   * its own array) at the offset given by {@link #offsetOf}. The caller checked the range.
   */
  byte[] read(long pos, int len, byte[] buf);

  /** Where in the array returned by the last {@link #read} the bytes start. */
  int offsetOf(long pos);

  /** Positional reads record by record: O(1) memory, two reads per record. */
  static RecordSource streaming(RandomReadFile f) {
    long size = f.size();
    return new RecordSource() {
      @Override
      public long size() {
        return size;
      }

      @Override
      public byte[] read(long pos, int len, byte[] buf) {
        f.readFully(pos, buf, 0, len);
        return buf;
      }

      @Override
      public int offsetOf(long pos) {
        return 0;
      }
    };
  }

  /** One bulk read of the whole file; records are parsed in place. */
  static RecordSource inMemory(RandomReadFile f) {
    byte[] all = f.readFully(0, Math.toIntExact(f.size()));
    return new RecordSource() {
      @Override
      public long size() {
        return all.length;
      }

      @Override
      public byte[] read(long pos, int len, byte[] buf) {
        return all;
      }

      @Override
      public int offsetOf(long pos) {
        return (int) pos;
      }
    };
  }
}
