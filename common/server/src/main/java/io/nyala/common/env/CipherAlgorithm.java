package io.nyala.common.env;

import io.nyala.common.NyalaException;

/** The cipher of an encrypted file, stored as one byte in its header. Ids are never reused. */
public enum CipherAlgorithm {
  AES_128_CTR(1, 128),
  AES_192_CTR(2, 192),
  AES_256_CTR(3, 256);

  private final int id;
  private final int keyBits;

  CipherAlgorithm(int id, int keyBits) {
    this.id = id;
    this.keyBits = keyBits;
  }

  /** The header byte. */
  public int id() {
    return id;
  }

  public int keyBits() {
    return keyBits;
  }

  public int keyBytes() {
    return keyBits / 8;
  }

  /** The algorithm of a header byte, or null if unknown (the caller names the file). */
  public static CipherAlgorithm fromId(int id) {
    for (CipherAlgorithm a : values()) {
      if (a.id == id) {
        return a;
      }
    }
    return null;
  }

  /** The CTR algorithm with {@code bits}-bit keys; INVALID_ARGUMENT for other sizes. */
  public static CipherAlgorithm forKeyBits(int bits) {
    for (CipherAlgorithm a : values()) {
      if (a.keyBits == bits) {
        return a;
      }
    }
    throw NyalaException.invalidArgument("no AES-CTR algorithm with %d-bit keys", bits);
  }
}
