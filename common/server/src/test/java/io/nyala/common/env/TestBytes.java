package io.nyala.common.env;

/** Byte-array helpers for tests that look for plaintext in files written through an Env. */
public final class TestBytes {
  private TestBytes() {}

  /** The first position of {@code needle} in {@code hay}, or -1. */
  public static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
