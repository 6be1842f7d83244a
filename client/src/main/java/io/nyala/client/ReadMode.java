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
  READ_AT_SNAPSHOT(ReadModePB.READ_AT_SNAPSHOT);

  private final ReadModePB pb;

  ReadMode(ReadModePB pb) {
    this.pb = pb;
  }

  /** @return the wire form */
  ReadModePB toPb() {
    return pb;
  }
}
