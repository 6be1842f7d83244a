package io.nyala.tserver.consensus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.tserver.WriteResponsePB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.CodeInjectionForTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group whose first leader wrote its first entry and lost leadership before anyone took it:
 * the next leader's log starts with a different entry 0, and the old leader must give its stale
 * one up and catch up (docs/architecture.md, "A follower commits only what its leader matched").
 * The order that broke it: the new leader's heartbeat without a previous entry reaches the old
 * leader before the entries from index 0 do; Ratis then committed the stale entry 0 and refused
 * every append from 0 forever.
 *
 * <p>Real tablet servers and Ratis groups on loopback; the message order comes from Ratis' own
 * test seam ({@link CodeInjectionForTesting}, run by each server as a request arrives), which
 * drops the first term's appends, the first leader's later vote requests (so another server
 * leads next), and the new leader's first appends with entries to the old leader.
 */
@Timeout(120)
class StaleFirstEntryTest {
  private static final String APPEND = "RaftServerImpl.appendEntries";
  private static final String VOTE = "RaftServerImpl.requestVote";

  @TempDir Path dir;
  private final TserverFixture fx = new TserverFixture();
  private final List<TabletServer> servers = new ArrayList<>();
  private final String tablet = RaftIds.newId();
  /** The first leader's peer id, once it sent anything. */
  private final AtomicReference<String> first = new AtomicReference<>();
  private final AtomicLong firstTerm = new AtomicLong(-1);
  private final AtomicInteger entriesDropped = new AtomicInteger();

  @AfterEach
  void tearDown() {
    CodeInjectionForTesting.remove(APPEND);
    CodeInjectionForTesting.remove(VOTE);
    servers.forEach(TabletServer::close);
    fx.close();
  }

  @Test
  void aFirstLeaderWhoseFirstEntryNobodyTookCatchesUp() throws Exception {
    CodeInjectionForTesting.put(APPEND, (local, remote, args) -> {
      dropAppend(local.toString(), remote.toString(), (AppendEntriesRequestProto) args[1]);
      return true;
    });
    CodeInjectionForTesting.put(VOTE, (local, remote, args) -> {
      if (remote.toString().equals(first.get())) {
        throw new IllegalStateException("test drops the vote request of " + remote);
      }
      return true;
    });
    for (int i = 0; i < 3; i++) {
      servers.add(TserverFixture.start(TserverFixture.options(dir.resolve("ts" + i),
          TserverFixture.freePort())));
    }
    fx.createTablet(tablet, servers);
    TabletServer leader = await().atMost(Duration.ofSeconds(60))
        .until(this::leaderAfterFirstTerm, ts -> ts != null);
    CodeInjectionForTesting.remove(VOTE);
    assertThat(leader.uuid()).isNotEqualTo(first.get());

    WriteResponsePB w = fx.write(leader, TserverFixture.inserts(tablet, 0, 5, RowOpType.INSERT));
    assertThat(w.hasError()).as(w.toString()).isFalse();
    RaftServer.Division d = leader.raftServer().getDivision(RaftIds.groupId(tablet));
    long last = d.getRaftLog().getLastEntryTermIndex().getIndex();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(d.getInfo().getFollowerMatchIndices()).as("followers' match indexes")
            .containsOnly(last));
    assertThat(entriesDropped.get()).as("the new leader's entries were held back").isPositive();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      for (TabletServer ts : servers) {
        assertThat(ts.tabletManager().get(tablet).stateMachine().appliedIndex())
            .as("applied on " + ts.uuid()).isEqualTo(last);
      }
    });
    assertThat(fx.scanAll(leader, tablet, 100)).hasSize(5);
  }

  private void dropAppend(String local, String remote, AppendEntriesRequestProto r) {
    first.compareAndSet(null, remote);
    firstTerm.compareAndSet(-1, r.getLeaderTerm());
    if (r.getLeaderTerm() == firstTerm.get()) {
      throw new IllegalStateException("test drops the first term's appends from " + remote);
    }
    if (local.equals(first.get()) && r.getEntriesCount() > 0 && !r.hasPreviousLog()
        && entriesDropped.getAndIncrement() < 5) {
      throw new IllegalStateException("test drops the new leader's first entries to " + local);
    }
  }

  private TabletServer leaderAfterFirstTerm() throws Exception {
    for (TabletServer ts : servers) {
      RaftServer.Division d = ts.raftServer().getDivision(RaftIds.groupId(tablet));
      if (firstTerm.get() > 0 && d.getInfo().isLeaderReady()
          && d.getInfo().getCurrentTerm() > firstTerm.get()) {
        return ts;
      }
    }
    return null;
  }
}
