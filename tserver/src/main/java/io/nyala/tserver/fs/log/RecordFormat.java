package io.nyala.tserver.fs.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The container metadata record file: a 16-byte header (8-byte magic, u32 version,
 * u32 crc32c of the first 12 bytes), then records {@code u32 length, u32 crc32c(length),
 * payload, u32 crc32c(payload)}, all little-endian. Payloads have a fixed binary layout (no
 * protobuf: two record kinds of fixed size, and replay parses a million of them per second):
 * CREATE = {@code u8 1, u64 id, u64 offset, u64 length, u64 timestampMicros};
 * DELETE = {@code u8 2, u64 id}.
 */
final class RecordFormat {
  static final byte[] MAGIC = "NYLBMETA".getBytes(StandardCharsets.US_ASCII);
  static final int VERSION = 1;
  static final int HEADER_SIZE = 16;
  /** Record framing around the payload: length, length crc, payload crc. */
  static final int FRAME = 12;
  /** No payload is larger; a bigger length is corruption, not a huge allocation. */
  static final int MAX_PAYLOAD = 1 << 16;
  static final byte CREATE = 1;
  static final byte DELETE = 2;
  static final int CREATE_SIZE = 33;
  static final int DELETE_SIZE = 9;

  private RecordFormat() {}

  static byte[] header() {
    ByteBuffer b = ByteBuffer.allocate(HEADER_SIZE).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.put(MAGIC).putInt(VERSION);
    b.putInt(crc(b.array(), 0, 12));
    return b.array();
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  /** Appends a framed CREATE record to {@code out} at {@code pos}; returns the new position. */
  static int putCreate(byte[] out, int pos, long id, long offset, long length, long ts) {
    return frame(out, pos, CREATE_SIZE, p -> {
      out[p] = CREATE;
      putLong(out, p + 1, id);
      putLong(out, p + 9, offset);
      putLong(out, p + 17, length);
      putLong(out, p + 25, ts);
    });
  }

  static int putDelete(byte[] out, int pos, long id) {
    return frame(out, pos, DELETE_SIZE, p -> {
      out[p] = DELETE;
      putLong(out, p + 1, id);
    });
  }

  private static int frame(byte[] out, int pos, int len, java.util.function.IntConsumer body) {
    putInt(out, pos, len);
    putInt(out, pos + 4, crc(out, pos, 4));
    body.accept(pos + 8);
    putInt(out, pos + 8 + len, crc(out, pos + 8, len));
    return pos + FRAME + len;
  }

  static void putInt(byte[] b, int p, int v) {
    b[p] = (byte) v;
    b[p + 1] = (byte) (v >>> 8);
    b[p + 2] = (byte) (v >>> 16);
    b[p + 3] = (byte) (v >>> 24);
  }

  static void putLong(byte[] b, int p, long v) {
    putInt(b, p, (int) v);
    putInt(b, p + 4, (int) (v >>> 32));
  }

  static int getInt(byte[] b, int p) {
    return (b[p] & 0xff) | (b[p + 1] & 0xff) << 8 | (b[p + 2] & 0xff) << 16
        | (b[p + 3] & 0xff) << 24;
  }

  static long getLong(byte[] b, int p) {
    return (getInt(b, p) & 0xffffffffL) | ((long) getInt(b, p + 4) << 32);
  }
}
