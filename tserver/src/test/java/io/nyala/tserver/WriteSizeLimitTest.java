package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The largest Write a tserver accepts fits the Raft log's write buffer on every replica, which
 * is sized from {@code --max_write_request_bytes}: a request of exactly the limit is replicated
 * to three servers and read back; one byte more is refused before it reaches Raft.
 */
@Timeout(90)
class WriteSizeLimitTest {
  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();

  @AfterEach
  void tearDown() {
    servers.forEach(TabletServer::close);
    fx.close();
  }

  @Test
  void aWriteOfExactlyTheDefaultLimitIsReplicatedAndOneByteMoreIsRefused() {
    for (int i = 0; i < 3; i++) {
      servers.add(TserverFixture.start(
          TserverFixture.options(dir.resolve("ts" + i), TserverFixture.freePort())));
    }
    String tablet = RaftIds.newId();
    fx.createTablet(tablet, servers);
    TabletServer leader = TserverFixture.awaitLeader(tablet, servers);
    long limit = TserverOptions.DEFAULT_MAX_WRITE_REQUEST_BYTES;

    WriteRequestPB atLimit = rowOfRequestSize(tablet, 1, limit);
    assertThat(atLimit.getSerializedSize()).isEqualTo(limit);
    WriteResponsePB ok = fx.write(leader, atLimit);
    assertThat(ok.hasError()).as("%s", ok.getError()).isFalse();

    WriteResponsePB tooBig = fx.write(leader, rowOfRequestSize(tablet, 2, limit + 1));
    assertThat(tooBig.getError().getCode()).isEqualTo(StatusCodePB.INVALID_ARGUMENT);
    assertThat(tooBig.getError().getMessage())
        .contains((limit + 1) + " bytes exceeds the limit of " + limit + " bytes");

    // Every replica applied the big entry: its log and store took it.
    for (TabletServer ts : servers) {
      await().atMost(Duration.ofSeconds(20)).until(() ->
          ts.raftServer().getDivision(RaftIds.groupId(tablet)).getInfo()
              .getLastAppliedIndex() >= leader.raftServer().getDivision(RaftIds.groupId(tablet))
              .getRaftLog().getLastCommittedIndex());
    }
    List<Object[]> rows = fx.scanAll(leader, tablet, 10);
    assertThat(rows).singleElement().satisfies(r -> assertThat(r[0]).isEqualTo(1));
  }

  @Test
  void aLimitAboveWhatRaftCanCarryIsRefusedAtStartNamingFlagAndValue() {
    TserverOptions o = TserverFixture.options(dir.resolve("big"), TserverFixture.freePort());
    o.maxWriteRequestBytes = 2 << 20;
    assertThatThrownBy(() -> servers.add(TserverFixture.start(o)))
        .isInstanceOfSatisfying(NyalaException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT))
        .hasMessageContaining("--max_write_request_bytes must be in [1, 1032192], got 2097152");
  }

  /** One insert whose whole Write request serializes to exactly {@code size} bytes. */
  private static WriteRequestPB rowOfRequestSize(String tablet, int id, long size) {
    int valueLength = (int) size;
    for (int attempt = 0; attempt < 10; attempt++) {
      WriteRequestPB req = insert(tablet, id, valueLength);
      long diff = req.getSerializedSize() - size;
      if (diff == 0) {
        return req;
      }
      valueLength -= (int) diff;
    }
    throw new AssertionError("no value length gives a request of " + size + " bytes");
  }

  private static WriteRequestPB insert(String tablet, int id, int valueLength) {
    List<RowOperations.Op> ops = List.of(new RowOperations.Op(RowOpType.INSERT,
        TserverFixture.SCHEMA.newPartialRow().addInt("id", id)
            .addString("v", "x".repeat(valueLength))));
    return WriteRequestPB.newBuilder().setTabletId(tablet)
        .setSchema(TserverFixture.SCHEMA.toPb())
        .setRowOperations(RowOperations.encode(TserverFixture.SCHEMA, ops)).build();
  }
}
