package io.nyala.common.security.pki;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

/** A Ratis state machine for tests that records the payload of each applied entry. */
final class AppliedRecorder extends BaseStateMachine {
  final List<String> applied = new CopyOnWriteArrayList<>();

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    var entry = trx.getLogEntry();
    applied.add(entry.getStateMachineLogEntry().getLogData().toString(StandardCharsets.UTF_8));
    updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
    return CompletableFuture.completedFuture(Message.EMPTY);
  }
}
