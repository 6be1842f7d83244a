package io.nyala.tserver.replica;

import java.util.Arrays;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;

/**
 * Whether a group is quiet enough for its leader to start a hibernation round
 * (docs/dense-nodes.md, "Hibernate", condition 2): read from the leader's division alone.
 */
final class GroupQuietness {
  private GroupQuietness() {}

  /**
   * Null if every voter holds, has committed and applied the leader's last entry; else why not,
   * with the indexes.
   */
  static String whyNotQuiet(RaftServer.Division d) {
    RaftLog log = d.getRaftLog();
    long last = log.getLastEntryTermIndex() == null ? 0
        : log.getLastEntryTermIndex().getIndex();
    long committed = log.getLastCommittedIndex();
    long applied = d.getInfo().getLastAppliedIndex();
    long flushed = log.getFlushIndex();
    if (committed != last || applied != last || flushed != last) {
      return String.format("its log ends at %d, but here only %d is flushed, %d committed and "
          + "%d applied", last, flushed, committed, applied);
    }
    if (!d.getRaftConf().getPreviousPeers().isEmpty()) {
      return "its configuration is changing";
    }
    long[] matches = followerMatchIndices(d);
    for (long m : matches) {
      if (m != last) {
        return String.format("a follower has not matched its last entry %d (match indexes %s)",
            last, Arrays.toString(matches));
      }
    }
    // A follower learns the commit on the leader's next heartbeat and refuses to hibernate
    // before (HibernationRound#refusal); starting the round then would cost an idle period.
    for (CommitInfoProto c : d.getCommitInfos()) {
      if (c.getCommitIndex() != last) {
        return String.format("peer %s has not yet learned that entry %d is committed (it knows "
            + "%d)", c.getServer().getId().toStringUtf8(), last, c.getCommitIndex());
      }
    }
    return null;
  }

  /** The leader's followers' match indices; none for a group of one (Ratis gives null). */
  static long[] followerMatchIndices(RaftServer.Division d) {
    long[] m = d.getInfo().getFollowerMatchIndices();
    return m == null ? new long[0] : m;
  }
}
