package io.nyala.common.consensus;

import io.nyala.common.security.LogPayloads;
import java.io.IOException;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The one place a state machine seals a Raft entry (docs/encryption.md, "Raft log entries"): on the
 * leader, in {@code startTransaction}, under the division's current term. If leadership is lost
 * meanwhile the entry is never appended, so sealing under a newer term cannot put a repeated nonce
 * on disk; every replica opens the same bytes with {@link LogPayloads#open}.
 */
public final class SealedEntries {
  private SealedEntries() {}

  /** A transaction whose log data is the request's payload sealed under the current term. */
  public static TransactionContext start(BaseStateMachine sm, LogPayloads payloads,
      RaftClientRequest request) throws IOException {
    long term = sm.getServer().join().getDivision(sm.getGroupId()).getInfo().getCurrentTerm();
    byte[] sealed = payloads.seal(term, request.getMessage().getContent().toByteArray());
    return TransactionContext.newBuilder().setStateMachine(sm).setClientRequest(request)
        .setLogData(UnsafeByteOperations.unsafeWrap(sealed)).build();
  }
}
