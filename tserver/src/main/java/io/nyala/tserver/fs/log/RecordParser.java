package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
import java.nio.file.Path;

/**
 * Parses a container metadata file from a {@link RecordSource} and decides how its tail ends.
 * A crash can leave a partial last record or a zero-filled tail (a file system that extended
 * the file before the data reached it); both are an incomplete record to truncate. Anything
 * else that fails its CRC is corruption, also in the last record: a complete record whose
 * checksum does not match was committed and then damaged (a bit flip), and truncating it would
 * silently drop a committed CREATE or DELETE (docs/data-safety.md, "Damage is contained").
 */
final class RecordParser {
  /** Receives each record payload; {@code pos} is the record's offset in the file. */
  interface Visitor {
    void record(byte[] b, int off, int len, long pos);
  }

  /**
   * The result of a parse.
   *
   * @param validEnd where the last complete record ends
   * @param tailProblem why bytes after {@code validEnd} are to be cut, or null if none
   */
  record Result(long validEnd, String tailProblem) {}

  private RecordParser() {}

  /** Checks the header; returns false when the file is shorter than a header (incomplete). */
  static boolean checkHeader(RecordSource src, Path path) {
    if (src.size() < RecordFormat.HEADER_SIZE) {
      return false;
    }
    byte[] buf = src.read(0, RecordFormat.HEADER_SIZE, new byte[RecordFormat.HEADER_SIZE]);
    int o = src.offsetOf(0);
    for (int i = 0; i < RecordFormat.MAGIC.length; i++) {
      if (buf[o + i] != RecordFormat.MAGIC[i]) {
        throw NyalaException.corruption("%s: bad magic in metadata header", path);
      }
    }
    if (RecordFormat.crc(buf, o, 12) != RecordFormat.getInt(buf, o + 12)) {
      throw NyalaException.corruption("%s: metadata header CRC mismatch at offset 0", path);
    }
    int version = RecordFormat.getInt(buf, o + 8);
    if (version != RecordFormat.VERSION) {
      throw NyalaException.corruption("%s: unsupported metadata version %d", path, version);
    }
    return true;
  }

  static Result parse(RecordSource src, Path path, Visitor v) {
    long size = src.size();
    long pos = RecordFormat.HEADER_SIZE;
    byte[] buf = new byte[RecordFormat.MAX_PAYLOAD + 4];
    while (pos < size) {
      long remain = size - pos;
      if (remain < 8) {
        return tail(src, pos, "partial record header");
      }
      byte[] h = src.read(pos, 8, buf);
      int ho = src.offsetOf(pos);
      int len = RecordFormat.getInt(h, ho);
      if (RecordFormat.crc(h, ho, 4) != RecordFormat.getInt(h, ho + 4)) {
        if (allZero(src, pos, size)) {
          return new Result(pos, "all-zero tail of " + remain + " bytes at offset " + pos);
        }
        throw NyalaException.corruption("%s: record length CRC mismatch at offset %d", path, pos);
      }
      if (len < 0 || len > RecordFormat.MAX_PAYLOAD) {
        throw NyalaException.corruption("%s: record length %d out of range at offset %d", path,
            len & 0xffffffffL, pos);
      }
      long end = pos + RecordFormat.FRAME + len;
      if (end > size) {
        return tail(src, pos, "partial record of " + remain + " bytes (needs "
            + (RecordFormat.FRAME + len) + ")");
      }
      byte[] b = src.read(pos + 8, len + 4, buf);
      int bo = src.offsetOf(pos + 8);
      if (RecordFormat.crc(b, bo, len) != RecordFormat.getInt(b, bo + len)) {
        if (allZero(src, end - 4, size)) {
          // Torn: the length landed, the payload's end (its CRC) and all after it did not.
          return new Result(pos, "torn last record (zero-filled end) at offset " + pos);
        }
        throw NyalaException.corruption("%s: record payload CRC mismatch at offset %d%s", path,
            pos, end == size ? " (the last record, complete: damaged, not torn)" : "");
      }
      v.record(b, bo, len, pos);
      pos = end;
    }
    return new Result(pos, null);
  }

  private static Result tail(RecordSource src, long pos, String what) {
    String kind = allZero(src, pos, src.size()) ? "all-zero tail" : what;
    return new Result(pos, kind + " at offset " + pos);
  }

  /** Scans in small pieces so that streaming replay stays O(1) in memory. */
  private static boolean allZero(RecordSource src, long from, long to) {
    byte[] buf = new byte[4096];
    for (long p = from; p < to; ) {
      int n = (int) Math.min(buf.length, to - p);
      byte[] b = src.read(p, n, buf);
      int o = src.offsetOf(p);
      for (int i = 0; i < n; i++) {
        if (b[o + i] != 0) {
          return false;
        }
      }
      p += n;
    }
    return true;
  }
}
