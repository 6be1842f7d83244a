package io.nyala.client;

import io.nyala.common.proto.tserver.ReadModePB;

/** How a scan chooses the point in time it reads at. */
public enum ReadMode {
  /** Read whatever each tablet's leader has applied when the scan reaches it. */
  READ_LATEST(ReadModePB.READ_LATEST),
  /**
   * Read each tablet at a snapshot the server picks when the tablet's scan opens; every page of
   * that tablet, including after a leader change, reads the same snapshot.
   */
  READ_AT_SNAPSHOT(ReadModePB.READ_AT_SNAPSHOT),
  /**
   * Read each tablet at a snapshot that holds every write this client has seen acknowledged on
   * that tablet (and, for a scan token, every write its building client had seen): a leader
   * that has not applied that far yet waits, within the scan timeout. See docs/architecture.md,
   * "Consistent reads".
   */
  READ_YOUR_WRITES(ReadModePB.READ_YOUR_WRITES);

  private final ReadModePB pb;

  ReadMode(ReadModePB pb) {
    this.pb = pb;
  }

  /** @return the wire form */
  ReadModePB toPb() {
    return pb;
  }

  static ReadMode fromPb(ReadModePB pb) {
    for (ReadMode m : values()) {
      if (m.pb == pb) {
        return m;
      }
    }
    throw io.nyala.common.NyalaException.invalidArgument("unknown read mode %s", pb);
  }
}
