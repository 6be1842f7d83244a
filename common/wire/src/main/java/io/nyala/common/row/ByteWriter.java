package io.nyala.common.row;

import io.nyala.common.InternalApi;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable big-endian byte buffer for the row codecs. Not thread-safe. */
@InternalApi
public final class ByteWriter {
  private byte[] buf;
  private int pos;

  /**
   * An empty buffer.
   *
   * @param initialCapacity the bytes to allocate at first (at least 16 are)
   */
  public ByteWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(int extra) {
    if (pos + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + extra));
    }
  }

  /** @param b a byte, as its low 8 bits */
  public void writeByte(int b) {
    ensure(1);
    buf[pos++] = (byte) b;
  }

  /** @param v an int16 (low 16 bits), written big-endian */
  public void writeShort(int v) {
    ensure(2);
    buf[pos++] = (byte) (v >>> 8);
    buf[pos++] = (byte) v;
  }

  /** @param v an int32, written big-endian */
  public void writeInt(int v) {
    ensure(4);
    buf[pos++] = (byte) (v >>> 24);
    buf[pos++] = (byte) (v >>> 16);
    buf[pos++] = (byte) (v >>> 8);
    buf[pos++] = (byte) v;
  }

  /** @param v an int64, written big-endian */
  public void writeLong(long v) {
    ensure(8);
    for (int s = 56; s >= 0; s -= 8) {
      buf[pos++] = (byte) (v >>> s);
    }
  }

  /**
   * Appends raw bytes.
   *
   * @param b the array
   * @param off where in it to start
   * @param len how many bytes
   */
  public void writeBytes(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buf, pos, len);
    pos += len;
  }

  /** @param b bytes to append raw */
  public void writeBytes(byte[] b) {
    writeBytes(b, 0, b.length);
  }

  /**
   * Length-prefixed (int32) bytes.
   *
   * @param b the bytes
   */
  public void writeLengthPrefixed(byte[] b) {
    writeInt(b.length);
    writeBytes(b);
  }

  /** @param s a string, as int32-length-prefixed UTF-8 */
  public void writeString(String s) {
    writeLengthPrefixed(s.getBytes(StandardCharsets.UTF_8));
  }

  /** @return the bytes written so far */
  public int size() {
    return pos;
  }

  /**
   * A byte at an earlier position (for bitmaps written after the fact).
   *
   * @param at the position, below {@link #size()}
   * @param b the byte, as its low 8 bits
   */
  public void setByte(int at, int b) {
    buf[at] = (byte) b;
  }

  /** Empties the buffer, keeping its memory. */
  public void reset() {
    pos = 0;
  }

  /** @return a copy of the bytes written */
  public byte[] toByteArray() {
    return Arrays.copyOf(buf, pos);
  }

  /**
   * The internal array, shared.
   *
   * @return the array, valid up to {@link #size()}
   */
  public byte[] array() {
    return buf;
  }
}
