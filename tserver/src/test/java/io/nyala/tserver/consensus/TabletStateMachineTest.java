package io.nyala.tserver.consensus;

import static io.nyala.tserver.consensus.FakeTabletStoreTest.SCHEMA;
import static io.nyala.tserver.consensus.FakeTabletStoreTest.op;
import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.metadata.AlterSchemaOpPB;
import io.nyala.common.proto.metadata.PerRowResultPB;
import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.proto.metadata.WriteResultPB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.LogPayloads;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state machine against a fake store: a real {@link RaftStorage} in a temporary directory and
 * real {@link TransactionContext}s; the Raft server only names the state machine.
 */
@Timeout(30)
class TabletStateMachineTest {
  private static final String TABLET = "t1";

  @TempDir
  Path dir;

  private final List<String> events = new ArrayList<>();
  private final TabletStateMachine.Listener listener = new TabletStateMachine.Listener() {
    @Override
    public void leaderChanged(String tabletId) {
      events.add("leader " + tabletId);
    }

    @Override
    public void rowsApplied(String tabletId, int rows) {
      events.add("rows " + tabletId + " " + rows);
    }

    @Override
    public void schemaAltered(String tabletId, Schema schema, String newTableName, long index) {
      events.add("schema " + tabletId + " v" + schema.version() + " '" + newTableName + "' at "
          + index);
    }

    @Override
    public void dataDamaged(String tabletId, NyalaException why) {
      events.add("damaged " + tabletId + ": " + why.detail());
    }
  };
  private RaftStorage raftStorage;

  @AfterEach
  void closeStorage() throws IOException {
    if (raftStorage != null) {
      raftStorage.close();
    }
  }

  private TabletStateMachine start(FakeStoreOpener opener, LogPayloads payloads)
      throws IOException {
    raftStorage = RaftStorage.newBuilder().setDirectory(dir.toFile())
        .setOption(RaftStorage.StartupOption.FORMAT)
        .setStorageFreeSpaceMin(SizeInBytes.valueOf(0)).build();
    raftStorage.initialize();
    TabletStateMachine sm = new TabletStateMachine(TABLET, listener, payloads, opener,
        new AppliedWrites());
    sm.initialize(serverWithIdOnly(), RaftGroupId.randomId(), raftStorage);
    return sm;
  }

  /**
   * Ratis' initialize only names the state machine after its server's id; a real server needs
   * a group, ports and threads that these tests do not use. Every other call fails the test.
   */
  private static RaftServer serverWithIdOnly() {
    RaftPeerId id = RaftPeerId.valueOf("p1");
    return (RaftServer) Proxy.newProxyInstance(RaftServer.class.getClassLoader(),
        new Class<?>[] {RaftServer.class}, (proxy, method, args) -> {
          if (method.getName().equals("getId")) {
            return id;
          }
          throw new UnsupportedOperationException("RaftServer." + method.getName());
        });
  }

  private TabletStateMachine start(FakeTabletStore store) throws IOException {
    return start(new FakeStoreOpener(store), LogPayloads.plain(TABLET));
  }

  private static byte[] write(RowOperations.Op... ops) {
    return TabletOpPB.newBuilder().setWrite(WriteOpPB.newBuilder().setSchema(SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(SCHEMA, List.of(ops)))).build().toByteArray();
  }

  private static byte[] alter(Schema next, String newTableName) {
    return TabletOpPB.newBuilder().setAlterSchema(AlterSchemaOpPB.newBuilder()
        .setSchema(next.toPb()).setNewTableName(newTableName)).build().toByteArray();
  }

  private static CompletableFuture<Message> apply(TabletStateMachine sm, long index,
      byte[] logData) {
    return apply(sm, 1, index, logData);
  }

  private static CompletableFuture<Message> apply(TabletStateMachine sm, long term, long index,
      byte[] logData) {
    LogEntryProto entry = LogEntryProto.newBuilder().setTerm(term).setIndex(index)
        .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
            .setLogData(ByteString.copyFrom(logData)))
        .build();
    return sm.applyTransaction(TransactionContext.newBuilder().setStateMachine(sm)
        .setServerRole(RaftPeerRole.FOLLOWER).setLogEntry(entry).build());
  }

  private static WriteResultPB result(CompletableFuture<Message> f) throws Exception {
    return WriteResultPB.parseFrom(f.get().getContent().toByteArray());
  }

  /** Why {@code f} failed; fails the test if it completed normally. */
  static NyalaException failure(CompletableFuture<?> f) {
    try {
      f.get();
    } catch (ExecutionException e) {
      return NyalaException.from(e.getCause());
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("entry applied: " + f.join());
  }

  @Test
  void writeEntriesReplyWithTheirIndexAndPerRowResults() throws Exception {
    FakeTabletStore store = new FakeTabletStore(SCHEMA);
    TabletStateMachine sm = start(store);

    WriteResultPB first = result(apply(sm, 1, write(op(RowOpType.INSERT, 1),
        op(RowOpType.INSERT, 2))));
    WriteResultPB second = result(apply(sm, 2, write(op(RowOpType.INSERT, 1),
        op(RowOpType.INSERT, 3), op(RowOpType.UPDATE, 9))));

    assertThat(first.getWriteIndex()).isEqualTo(1);
    assertThat(first.getPerRowErrorsList()).isEmpty();
    assertThat(second.getWriteIndex()).isEqualTo(2);
    assertThat(second.getPerRowErrorsList()).extracting(PerRowResultPB::getRowIndex)
        .containsExactly(0, 2);
    assertThat(store.rows().keySet()).containsExactly("1", "2", "3");
    assertThat(sm.appliedIndex()).isEqualTo(2);
    assertThat(sm.whenApplied(2)).isCompletedWithValue(2L);
    assertThat(events).containsExactly("rows t1 2", "rows t1 1");
  }

  /** Ratis never applies below its applied index, so the replay goes to the applier itself. */
  @Test
  void replayBelowTheDurableIndexChangesNothing() throws Exception {
    FakeTabletStore store = FakeTabletStore.flushedAt(SCHEMA, 3, 5);
    TabletStateMachine sm = start(store);
    assertThat(sm.appliedIndex()).isEqualTo(5);
    EntryApplier applier = new EntryApplier(TABLET, LogPayloads.plain(TABLET), listener,
        new AppliedWrites());

    WriteResultPB replayed = applier.apply(store, 4, write(op(RowOpType.UPDATE, 1)));

    assertThat(replayed.getWriteIndex()).isEqualTo(4);
    assertThat(replayed.getPerRowErrorsList()).isEmpty();
    assertThat(store.rows()).isEmpty();
    assertThat(store.lastAppliedIndex()).isEqualTo(5);
  }

  @Test
  void schemaChangeEntriesAlterTheStoreAndTellTheOwnerEvenOnReplay() throws Exception {
    FakeTabletStore store = new FakeTabletStore(SCHEMA);
    TabletStateMachine sm = start(store);
    Schema next = SCHEMA.withVersion(SCHEMA.version() + 1);

    assertThat(result(apply(sm, 1, alter(next, "renamed"))).getWriteIndex()).isEqualTo(1);
    assertThat(result(apply(sm, 2, alter(next, ""))).getPerRowErrorsList()).isEmpty();

    assertThat(store.schema().version()).isEqualTo(next.version());
    assertThat(events).containsExactly(
        "schema t1 v" + next.version() + " 'renamed' at 1",
        "schema t1 v" + next.version() + " '' at 2");
  }

  @Test
  void takeSnapshotReportsTheLastDurablyFlushedIndexWithoutFlushing() throws Exception {
    FakeTabletStore store = new FakeTabletStore(SCHEMA);
    TabletStateMachine sm = start(store);
    apply(sm, 1, write(op(RowOpType.INSERT, 1))).get();
    assertThat(sm.takeSnapshot()).isEqualTo(-1);
    assertThat(sm.getLatestSnapshot()).isNull();

    apply(sm, 2, write(op(RowOpType.INSERT, 2))).get();
    store.flush();
    apply(sm, 3, write(op(RowOpType.INSERT, 3))).get();

    assertThat(sm.takeSnapshot()).isEqualTo(2);
    assertThat(sm.getLatestSnapshot().getIndex()).isEqualTo(2);
    assertThat(sm.getLatestSnapshot().getFiles()).isEmpty();
    assertThat(store.flushes()).isEqualTo(1);
  }

  @Test
  void reinitializeAfterACopyOpensTheInstalledState() throws Exception {
    FakeTabletStore before = new FakeTabletStore(SCHEMA);
    FakeStoreOpener opener = new FakeStoreOpener(before);
    TabletStateMachine sm = start(opener, LogPayloads.plain(TABLET));
    apply(sm, 1, write(op(RowOpType.INSERT, 1))).get();
    CompletableFuture<Long> waiting = sm.whenApplied(10);

    FakeTabletStore copied = FakeTabletStore.flushedAt(SCHEMA, 2, 10);
    opener.next(copied);
    sm.pause();
    sm.reinitialize();

    assertThat(opener.opens()).isEqualTo(2);
    assertThat(sm.store()).isSameAs(copied);
    assertThat(sm.appliedIndex()).isEqualTo(10);
    assertThat(sm.getLatestSnapshot().getTermIndex().getTerm()).isEqualTo(2);
    assertThat(sm.getLatestSnapshot().getIndex()).isEqualTo(10);
    assertThat(waiting).isCompletedWithValue(10L);
    assertThat(result(apply(sm, 2, 11, write(op(RowOpType.INSERT, 5)))).getWriteIndex())
        .isEqualTo(11);
    assertThat(copied.rows().keySet()).containsExactly("5");
  }

  @Test
  void aCorruptEntryFailsNamingTabletAndIndexAndLaterEntriesApply() throws Exception {
    FakeTabletStore store = new FakeTabletStore(SCHEMA);
    TabletStateMachine sm = start(store);

    NyalaException e = failure(apply(sm, 7, new byte[] {(byte) 0xff, 0x01, 0x02}));

    assertThat(e.detail()).contains("tablet t1").contains("entry 7");
    assertThat(sm.appliedIndex()).isEqualTo(7);
    assertThat(result(apply(sm, 8, write(op(RowOpType.INSERT, 1)))).getWriteIndex())
        .isEqualTo(8);
  }

  @Test
  void anEntryThatCannotBeUnsealedFailsNamingTabletAndIndex() throws Exception {
    LogPayloads sealed = LogPayloads.sealed(TABLET, KeyMaterial.random(128));
    TabletStateMachine sm = start(new FakeStoreOpener(new FakeTabletStore(SCHEMA)), sealed);

    NyalaException e = failure(apply(sm, 3, write(op(RowOpType.INSERT, 1))));

    assertThat(e.detail()).contains("tablet t1").contains("entry 3");
    assertThat(sm.appliedIndex()).isEqualTo(3);
  }

  @Test
  void aStoreThatCannotOpenMarksTheReplicaFailedAndEveryEntryFailsWithIt() throws Exception {
    FakeStoreOpener opener = new FakeStoreOpener(new FakeTabletStore(SCHEMA));
    opener.damaged(NyalaException.corruption("CRC mismatch"));
    TabletStateMachine sm = start(opener, LogPayloads.plain(TABLET));

    assertThat(sm.isInitialized()).isFalse();
    assertThat(sm.store()).isNull();
    assertThat(sm.openFailure().code()).isEqualTo(StatusCode.CORRUPTION);
    assertThat(sm.openFailure().detail())
        .isEqualTo("tablet t1: cannot open its data (fake superblock): CRC mismatch");
    assertThat(events).containsExactly("damaged t1: " + sm.openFailure().detail());
    assertThat(failure(apply(sm, 1, write(op(RowOpType.INSERT, 1))))).isSameAs(sm.openFailure());
    assertThat(sm.appliedIndex()).isEqualTo(1);
  }
}
