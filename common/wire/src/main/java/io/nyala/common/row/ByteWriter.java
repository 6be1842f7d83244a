package io.nyala.common.row;

import io.nyala.common.InternalApi;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable big-endian byte buffer for the row codecs. Not thread-safe. */
@InternalApi
public final class ByteWriter {
  private byte[] buf;
  private int pos;

  public ByteWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(int extra) {
    if (pos + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + extra));
    }
  }

  public void writeByte(int b) {
    ensure(1);
    buf[pos++] = (byte) b;
  }

  public void writeShort(int v) {
    ensure(2);
    buf[pos++] = (byte) (v >>> 8);
    buf[pos++] = (byte) v;
  }

  public void writeInt(int v) {
    ensure(4);
    buf[pos++] = (byte) (v >>> 24);
    buf[pos++] = (byte) (v >>> 16);
    buf[pos++] = (byte) (v >>> 8);
    buf[pos++] = (byte) v;
  }

  public void writeLong(long v) {
    ensure(8);
    for (int s = 56; s >= 0; s -= 8) {
      buf[pos++] = (byte) (v >>> s);
    }
  }

  public void writeBytes(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buf, pos, len);
    pos += len;
  }

  public void writeBytes(byte[] b) {
    writeBytes(b, 0, b.length);
  }

  /** Length-prefixed (int32) bytes. */
  public void writeLengthPrefixed(byte[] b) {
    writeInt(b.length);
    writeBytes(b);
  }

  public void writeString(String s) {
    writeLengthPrefixed(s.getBytes(StandardCharsets.UTF_8));
  }

  public int size() {
    return pos;
  }

  /** A byte at an earlier position (for bitmaps written after the fact). */
  public void setByte(int at, int b) {
    buf[at] = (byte) b;
  }

  public void reset() {
    pos = 0;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, pos);
  }

  /** The internal array; valid up to {@link #size()}. */
  public byte[] array() {
    return buf;
  }
}
