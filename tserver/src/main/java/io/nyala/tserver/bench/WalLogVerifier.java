package io.nyala.tserver.bench;

import io.nyala.common.NyalaException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;

/**
 * Reads a division's Raft log back and checks what {@link WalAppendBench} wrote: exactly
 * {@code perWriter} write entries per client id, with call ids 0, 1, 2, ... in log order.
 */
final class WalLogVerifier {
  private WalLogVerifier() {}

  /** Returns the number of write entries found; CORRUPTION naming the first mismatch. */
  static long verify(RaftServer.Division division, List<ClientId> writers, long perWriter) {
    RaftLog log = division.getRaftLog();
    Map<ClientId, long[]> next = new HashMap<>();
    writers.forEach(c -> next.put(c, new long[1]));
    long found = 0;
    long last = log.getLastEntryTermIndex().getIndex();
    for (long i = log.getStartIndex(); i <= last; i++) {
      LogEntryProto e = entry(log, i);
      if (!e.hasStateMachineLogEntry()) {
        continue;
      }
      StateMachineLogEntryProto sm = e.getStateMachineLogEntry();
      ClientId client = ClientId.valueOf(sm.getClientId());
      long[] expected = next.get(client);
      if (expected == null) {
        throw NyalaException.corruption("log entry %d: write from unknown client %s", i, client);
      }
      if (sm.getCallId() != expected[0]) {
        throw NyalaException.corruption("log entry %d: client %s call id %d, expected %d", i,
            client, sm.getCallId(), expected[0]);
      }
      expected[0]++;
      found++;
    }
    long want = perWriter * writers.size();
    if (found != want) {
      throw NyalaException.corruption("Raft log of %s holds %d write entries, expected %d",
          division.getGroup().getGroupId(), found, want);
    }
    return found;
  }

  private static LogEntryProto entry(RaftLog log, long index) {
    try {
      LogEntryProto e = log.get(index);
      if (e == null) {
        throw NyalaException.corruption("Raft log entry %d missing", index);
      }
      return e;
    } catch (RaftLogIOException e) {
      throw NyalaException.ioError("cannot read Raft log entry " + index + ": " + e, e);
    }
  }
}
