package io.nyala.tserver;

import io.nyala.common.NyalaException;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.security.KeyProvider;
import io.nyala.tserver.heartbeat.Heartbeater;

/**
 * A tablet server's part in rotating the cluster key (docs/encryption.md, "Rotating the cluster
 * key"): told the leader's version by a heartbeat answer, it reloads its key provider and
 * re-wraps its server key in its instance files under that version; its heartbeats report the
 * version its instance files record. Tablet data keys in tablet metadata are wrapped by the
 * server key, which does not change, so they stay as they are.
 */
final class ClusterKeyFollower implements Heartbeater.ClusterKeySink {
  private final ServerFs fs;
  private final KeyProvider keys;

  ClusterKeyFollower(ServerFs fs, KeyProvider keys) {
    this.fs = fs;
    this.keys = keys;
  }

  @Override
  public int version() {
    return fs.serverKeyVersion();
  }

  @Override
  public synchronized void moveTo(int version) {
    if (keys == null || version == fs.serverKeyVersion()) {
      return;
    }
    keys.reload();
    if (keys.currentVersion() != version) {
      throw NyalaException.notFound("the leader master rotated the cluster key to version %d "
          + "but %s holds versions %s: give this server the same key file as the masters",
          version, keys, keys.versions());
    }
    fs.rewrapServerKey(keys);
  }
}
