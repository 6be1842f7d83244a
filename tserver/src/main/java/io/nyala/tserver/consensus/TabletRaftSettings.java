package io.nyala.tserver.consensus;

import io.nyala.common.consensus.RaftSettings;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;

/** The Ratis properties a tablet server adds to every server's (see {@link RaftSettings}). */
public final class TabletRaftSettings {
  private TabletRaftSettings() {}

  /** Applies the tablet server's settings; {@code maxEntryBytes}: the largest log entry. */
  public static void apply(RaftProperties p, long maxEntryBytes) {
    // Snapshots are the stores' flushes; each flush asks for one, so no auto trigger.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, false);
    // A tablet "snapshot" has no files (it is the flushed blocks): a replica behind the purged
    // log must be rebuilt by tablet copy (notifyInstallSnapshotFromLeader), never by Ratis
    // shipping an empty file list.
    RaftSettings.useStateMachineCopy(p);
    // The largest entry is a Write of --max_write_request_bytes plus its header. Ratis sizes two
    // things by it: the batch an appender sends to a follower (which must hold any one entry)
    // and the log's write buffer (at least that batch limit + 8). Each awake division holds
    // that buffer in direct memory, so it is sized by the largest Write rather than Ratis'
    // 1 MiB: 2,000 awake replicas then fit a 1 GiB JVM (docs/dense-nodes.md).
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, SizeInBytes.valueOf(maxEntryBytes));
    RaftServerConfigKeys.Log.setWriteBufferSize(p, SizeInBytes.valueOf(maxEntryBytes + 8));
  }
}
