package io.nyala.common.row;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.nio.charset.StandardCharsets;

/**
 * Reads what {@link ByteWriter} wrote; a short buffer is an error, never an AIOOBE. Every length
 * and count read is checked against the bytes that remain before anything is allocated for it
 * (see docs/data-safety.md, "Input"), so a damaged or hostile buffer costs at most its own size.
 * The error's code says whose fault the bytes are: CORRUPTION (the default) for what was stored
 * or sent by a peer, INVALID_ARGUMENT for a client's request.
 */
@InternalApi
public final class ByteReader {
  private final byte[] buf;
  private int pos;
  private final int end;
  private final String what;
  private final StatusCode onBad;

  /**
   * A reader of a whole array whose malformed input is CORRUPTION.
   *
   * @param buf the bytes
   * @param what what the bytes are, named in errors
   */
  public ByteReader(byte[] buf, String what) {
    this(buf, 0, buf.length, what);
  }

  /**
   * A reader of part of an array whose malformed input is CORRUPTION.
   *
   * @param buf the bytes
   * @param off where to start
   * @param len how many bytes to read at most
   * @param what what the bytes are, named in errors
   */
  public ByteReader(byte[] buf, int off, int len, String what) {
    this(buf, off, len, what, StatusCode.CORRUPTION);
  }

  /**
   * A reader whose malformed input fails with {@code onBad}.
   *
   * @param buf the bytes
   * @param off where to start
   * @param len how many bytes to read at most
   * @param what what the bytes are, named in errors
   * @param onBad the code of errors for malformed input
   */
  public ByteReader(byte[] buf, int off, int len, String what, StatusCode onBad) {
    this.buf = buf;
    this.pos = off;
    this.end = off + len;
    this.what = what;
    this.onBad = onBad;
  }

  private void need(int n) {
    // Compared as a difference: pos + n overflows for a length near Integer.MAX_VALUE.
    if (n < 0 || n > end - pos) {
      throw bad("%s truncated: need %d bytes at offset %d, have %d", what, n, pos, end - pos);
    }
  }

  /**
   * An error with this reader's code.
   *
   * @param fmt a {@link String#format} pattern
   * @param args its arguments
   * @return the exception, not thrown
   */
  public NyalaException bad(String fmt, Object... args) {
    return new NyalaException(onBad, String.format(fmt, args));
  }

  /**
   * The bytes left to read.
   *
   * @return the count
   */
  public int remaining() {
    return end - pos;
  }

  /**
   * Reads a count of {@code thing}s, each taking at least {@code minBytesEach} bytes, and checks
   * that the bytes left can hold them: the caller may then allocate for the count.
   *
   * @param thing what is counted, named in errors
   * @param minBytesEach the fewest bytes one takes
   * @return the count
   */
  public int readCount(String thing, int minBytesEach) {
    int at = pos;
    int n = readInt();
    checkCount(thing, n, minBytesEach, at);
    return n;
  }

  /**
   * Checks a count given elsewhere (e.g. a protobuf field) against the bytes left.
   *
   * @param thing what is counted, named in errors
   * @param n the count
   * @param minBytesEach the fewest bytes one takes
   */
  public void checkCount(String thing, long n, int minBytesEach) {
    checkCount(thing, n, minBytesEach, pos);
  }

  private void checkCount(String thing, long n, int minBytesEach, int at) {
    if (n < 0 || n * Math.max(1, minBytesEach) > remaining()) {
      throw bad("%s: %s count %d at offset %d needs at least %d bytes each, only %d remain",
          what, thing, n, at, Math.max(1, minBytesEach), remaining());
    }
  }

  /** @return whether any byte is left to read */
  public boolean hasRemaining() {
    return pos < end;
  }

  /** @return the offset of the next byte to read */
  public int position() {
    return pos;
  }

  /** @return the next byte, unsigned */
  public int readByte() {
    need(1);
    return buf[pos++] & 0xff;
  }

  /** @return the next big-endian int16 */
  public short readShort() {
    need(2);
    int v = ((buf[pos] & 0xff) << 8) | (buf[pos + 1] & 0xff);
    pos += 2;
    return (short) v;
  }

  /** @return the next big-endian int32 */
  public int readInt() {
    need(4);
    int v = ((buf[pos] & 0xff) << 24) | ((buf[pos + 1] & 0xff) << 16)
        | ((buf[pos + 2] & 0xff) << 8) | (buf[pos + 3] & 0xff);
    pos += 4;
    return v;
  }

  /** @return the next big-endian int64 */
  public long readLong() {
    need(8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (buf[pos + i] & 0xff);
    }
    pos += 8;
    return v;
  }

  /**
   * Reads raw bytes.
   *
   * @param n how many
   * @return a copy of the next {@code n} bytes
   */
  public byte[] readBytes(int n) {
    need(n);
    byte[] out = new byte[n];
    System.arraycopy(buf, pos, out, 0, n);
    pos += n;
    return out;
  }

  /**
   * Skips bytes.
   *
   * @param n how many
   */
  public void skip(int n) {
    need(n);
    pos += n;
  }

  /** @return the next int32-length-prefixed bytes */
  public byte[] readLengthPrefixed() {
    return readBytes(readInt());
  }

  /** @return the next int32-length-prefixed UTF-8 string */
  public String readString() {
    int n = readInt();
    need(n);
    String s = new String(buf, pos, n, StandardCharsets.UTF_8);
    pos += n;
    return s;
  }
}
