package io.nyala.common.security;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A key wrapped (RFC 3394) by the cluster key of {@code clusterKeyVersion}: what a server keeps
 * in its {@code instance} file and the master keeps in its catalog. Safe to print.
 */
public record WrappedKey(int clusterKeyVersion, byte[] wrapped) {
  public WrappedKey {
    wrapped = wrapped.clone();
  }

  @Override
  public byte[] wrapped() {
    return wrapped.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WrappedKey w
        && w.clusterKeyVersion == clusterKeyVersion && Arrays.equals(w.wrapped, wrapped);
  }

  @Override
  public int hashCode() {
    return 31 * clusterKeyVersion + Arrays.hashCode(wrapped);
  }

  @Override
  public String toString() {
    return "WrappedKey[v" + clusterKeyVersion + ", " + HexFormat.of().formatHex(wrapped) + "]";
  }
}
