package io.nyala.tserver.bench;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.metadata.BatchedWritePB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.security.LogPayloads;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.raftlog.RaftLogIOException;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * Reads a division's Raft log back and checks what {@link WalAppendBench} wrote: exactly
 * {@code perWriter} writes per client id, in entries of several writes each, with sequence
 * numbers 0, 1, 2, ... in log order.
 */
final class WalLogVerifier {
  private WalLogVerifier() {}

  /** Returns the number of writes found; CORRUPTION naming the first mismatch. */
  static long verify(RaftServer.Division division, LogPayloads payloads, List<ClientId> writers,
      long perWriter) {
    RaftLog log = division.getRaftLog();
    Map<ByteString, long[]> next = new HashMap<>();
    writers.forEach(c -> next.put(c.toByteString(), new long[1]));
    long found = 0;
    long last = log.getLastEntryTermIndex().getIndex();
    for (long i = log.getStartIndex(); i <= last; i++) {
      LogEntryProto e = entry(log, i);
      if (!e.hasStateMachineLogEntry()) {
        continue;
      }
      for (BatchedWritePB w : op(payloads, e).getWriteBatch().getWritesList()) {
        ByteString client = ByteString.copyFrom(w.getClientId().toByteArray());
        long[] expected = next.get(client);
        if (expected == null) {
          throw NyalaException.corruption("log entry %d: write from unknown client %s", i,
              ClientId.valueOf(client));
        }
        if (w.getSeqNo() != expected[0]) {
          throw NyalaException.corruption("log entry %d: client %s sequence number %d, "
              + "expected %d", i, ClientId.valueOf(client), w.getSeqNo(), expected[0]);
        }
        expected[0]++;
        found++;
      }
    }
    long want = perWriter * writers.size();
    if (found != want) {
      throw NyalaException.corruption("Raft log of %s holds %d writes, expected %d",
          division.getGroup().getGroupId(), found, want);
    }
    return found;
  }

  private static TabletOpPB op(LogPayloads payloads, LogEntryProto e) {
    try {
      return TabletOpPB.parseFrom(payloads.open(
          e.getStateMachineLogEntry().getLogData().toByteArray()));
    } catch (InvalidProtocolBufferException ex) {
      throw NyalaException.corruption("log entry %d: unreadable: %s", e.getIndex(),
          ex.getMessage());
    }
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
