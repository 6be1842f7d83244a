package io.nyala.tserver.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.tserver.ConfirmHibernatedRequestPB;
import io.nyala.common.proto.tserver.HibernateReplicaRequestPB;
import io.nyala.common.proto.tserver.RequestHibernationRequestPB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.tserver.replica.HibernationRound.Position;
import io.nyala.tserver.replica.PeerChannel.Peer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hibernation protocol over a fake transport that loses the messages a test chooses
 * (docs/dense-nodes.md): three replicas of one tablet, each holding a Raft position.
 */
@Timeout(20)
class HibernationProtocolTest {
  private static final long TIMEOUT_MS = 200;
  private static final String TABLET = "0123456789abcdef0123456789abcdef";

  private final Map<String, FakeReplica> nodes = new LinkedHashMap<>();
  private final FakeChannel channel = new FakeChannel();
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void tearDown() {
    pool.shutdownNow();
  }

  @Test
  void aFollowerRefusesAtAnotherTermOrIndexAndAgreesOnlyWhenAllIsCommittedAppliedAndFlushed() {
    Position at = new Position(5, 40, 40, 40, 40);
    assertThat(HibernationRound.refusal(at, 5, 40)).isNull();
    assertThat(HibernationRound.refusal(at, 6, 40)).contains("term 5, not 6");
    assertThat(HibernationRound.refusal(at, 5, 39)).contains("ends at index 40").contains("not 39");
    assertThat(HibernationRound.refusal(new Position(5, 41, 40, 40, 41), 5, 41))
        .contains("committed 40");
    assertThat(HibernationRound.refusal(new Position(5, 40, 40, 39, 40), 5, 40))
        .contains("applied 39");
    assertThat(HibernationRound.refusal(new Position(5, 40, 40, 40, 38), 5, 40))
        .contains("flushed 38");
  }

  @Test
  void whenEveryFollowerAgreesTheLeaderClosesLastAndTheTabletIsCold() {
    threeReplicas(new Position(5, 40, 40, 40, 40));
    HibernationRound.Outcome o = round("a", 5, 40);
    assertThat(o.hibernated()).isTrue();
    assertThat(nodes.values()).allMatch(n -> n.cold);
    assertThat(nodes.get("a").closedAfter).containsExactlyInAnyOrder("b", "c");
  }

  @Test
  void aFollowerAtAnotherTermRefusesAndTheOneThatAgreedIsWokenAgain() {
    threeReplicas(new Position(5, 40, 40, 40, 40));
    nodes.get("c").at = new Position(6, 40, 40, 40, 40); // saw a newer election
    HibernationRound.Outcome o = round("a", 5, 40);
    assertThat(o.hibernated()).isFalse();
    assertThat(o.refusals()).containsOnlyKeys("c");
    assertThat(o.refusals().get("c")).contains("term 6");
    assertThat(o.woken()).containsExactly("b");
    assertThat(nodes.values()).noneMatch(n -> n.cold);
  }

  @Test
  void aFollowerThatMissesTheHibernateRequestCostsTheRoundNotTheGroup() {
    threeReplicas(new Position(5, 40, 40, 40, 40));
    channel.lostHibernates.add("c");
    HibernationRound.Outcome o = round("a", 5, 40);
    assertThat(o.hibernated()).isFalse();
    assertThat(o.refusals().get("c")).isEqualTo("no answer in time");
    assertThat(nodes.values()).noneMatch(n -> n.cold); // b woken again; a and c never closed
  }

  @Test
  void aLostWakeLeavesAFollowerColdUntilTheNextAskHealsIt() {
    threeReplicas(new Position(5, 40, 40, 40, 40));
    nodes.get("c").at = new Position(5, 39, 39, 39, 39);
    channel.lostWakes.add("b");
    HibernationRound.Outcome o = round("a", 5, 40);
    assertThat(o.hibernated()).isFalse();
    assertThat(nodes.get("b").cold).isTrue(); // its wake was lost
    // What ReplicaHealer does for a group with a follower behind: ask again.
    channel.lostWakes.clear();
    HibernationRound.wake(nodes.get("a"), List.of(peer("b"), peer("c")), channel, TIMEOUT_MS);
    assertThat(nodes.get("b").cold).isFalse();
    // Waking an awake replica is harmless.
    assertThat(nodes.get("c").cold).isFalse();
    assertThat(nodes.get("c").wakes).isZero();
  }

  @Test
  void whenTheLeaderCannotCloseItsOwnGroupEveryFollowerIsWokenAgain() {
    threeReplicas(new Position(5, 40, 40, 40, 40));
    nodes.get("a").closeFails = true;
    HibernationRound.Outcome o = round("a", 5, 40);
    assertThat(o.hibernated()).isFalse();
    assertThat(o.refusals().get("a")).contains("disk full");
    assertThat(o.woken()).containsExactlyInAnyOrder("b", "c");
    assertThat(nodes.values()).noneMatch(n -> n.cold);
  }

  @Test
  void hibernatingAgainAtTheSamePlaceIsANoOpAndElsewhereIsRefused() {
    threeReplicas(new Position(5, 40, 40, 40, 40));
    assertThat(nodes.get("b").hibernate(5, 40)).isNull();
    assertThat(nodes.get("b").hibernate(5, 40)).isNull();
    assertThat(nodes.get("b").hibernate(5, 41)).contains("already hibernated");
  }

  @Test
  void twoConcurrentWakesShareOneAttempt() throws Exception {
    TabletReplica r = ReplicaStateTest.replicaIn(ReplicaState.HIBERNATED);
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch claimed = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    java.util.function.Consumer<TabletReplica> waker = x -> {
      if (!x.claimWake()) {
        return; // another caller's wake is in progress: enter() waits for it
      }
      attempts.incrementAndGet();
      claimed.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      x.transition(ReplicaState.RUNNING);
    };
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    Future<Boolean> first = pool.submit(() -> r.enter(deadline, waker));
    claimed.await();
    Future<Boolean> second = pool.submit(() -> r.enter(deadline, waker));
    // The second caller is parked on the first one's wake, not starting its own.
    org.awaitility.Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() ->
        pool instanceof java.util.concurrent.ThreadPoolExecutor t && t.getActiveCount() == 2);
    release.countDown();
    assertThat(first.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(second.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(attempts).hasValue(1);
    assertThat(r.state()).isEqualTo(ReplicaState.RUNNING);
  }

  @Test
  void aWakeThatDoesNotFinishInTheCallersDeadlineAnswersUnavailable() throws Exception {
    TabletReplica r = ReplicaStateTest.replicaIn(ReplicaState.HIBERNATED);
    r.claimWake(); // someone else's wake, never finishing
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> r.enter(deadline, x -> { }))
        .isInstanceOfSatisfying(NyalaException.class, e -> assertThat(e.code())
            .isEqualTo(io.nyala.common.StatusCode.SERVICE_UNAVAILABLE))
        .hasMessageContaining("waking up");
  }

  private void threeReplicas(Position at) {
    for (String id : List.of("a", "b", "c")) {
      nodes.put(id, new FakeReplica(id, at));
    }
  }

  private HibernationRound.Outcome round(String leader, long term, long index) {
    List<Peer> followers = new ArrayList<>();
    nodes.keySet().stream().filter(id -> !id.equals(leader)).forEach(id -> followers.add(peer(id)));
    return HibernationRound.run(nodes.get(leader), term, index, followers, channel, TIMEOUT_MS);
  }

  private static Peer peer(String id) {
    return new Peer(id, new HostPort("127.0.0.1", 1));
  }

  /** One replica: its Raft position and whether its group is closed. */
  private final class FakeReplica implements HibernationRound.Self {
    final String id;
    volatile Position at;
    volatile boolean cold;
    volatile long coldTerm;
    volatile long coldIndex;
    volatile int wakes;
    volatile boolean closeFails;
    /** The replicas already cold when this one closed. */
    final Set<String> closedAfter = new HashSet<>();

    FakeReplica(String id, Position at) {
      this.id = id;
      this.at = at;
    }

    @Override
    public String tabletId() {
      return TABLET;
    }

    @Override
    public String uuid() {
      return id;
    }

    @Override
    public synchronized String hibernate(long term, long index) {
      if (closeFails) {
        throw NyalaException.ioError("cannot write metadata: disk full", null);
      }
      if (cold) {
        return coldTerm == term && coldIndex == index ? null : "already hibernated elsewhere";
      }
      String why = HibernationRound.refusal(at, term, index);
      if (why == null) {
        nodes.values().stream().filter(n -> n != this && n.cold)
            .forEach(n -> closedAfter.add(n.id));
        cold = true;
        coldTerm = term;
        coldIndex = index;
      }
      return why;
    }

    synchronized void wake() {
      if (cold) {
        cold = false;
        wakes++;
      }
    }
  }

  /** Routes calls to the fake replicas; a lost message is never answered. */
  private final class FakeChannel implements PeerChannel {
    final Set<String> lostHibernates = new HashSet<>();
    final Set<String> lostWakes = new HashSet<>();

    @Override
    public CompletableFuture<Void> hibernate(Peer to, HibernateReplicaRequestPB req,
        long timeoutMs) {
      if (lostHibernates.contains(to.uuid())) {
        return new CompletableFuture<>();
      }
      String why = nodes.get(to.uuid()).hibernate(req.getTerm(), req.getIndex());
      return why == null ? CompletableFuture.completedFuture(null)
          : CompletableFuture.failedFuture(NyalaException.illegalState("%s", why));
    }

    @Override
    public CompletableFuture<Void> wake(Peer to, WakeReplicaRequestPB req, long timeoutMs) {
      if (lostWakes.contains(to.uuid())) {
        return new CompletableFuture<>();
      }
      nodes.get(to.uuid()).wake();
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> requestHibernation(Peer to, RequestHibernationRequestPB req,
        long timeoutMs) {
      // Rounds here are run by the tests themselves; a clean stop's request is tested with
      // real servers (CleanStopHibernationTest).
      return CompletableFuture.failedFuture(NyalaException.illegalState("not asked here"));
    }

    @Override
    public CompletableFuture<Void> confirmHibernated(Peer to, ConfirmHibernatedRequestPB req,
        long timeoutMs) {
      // Cold reads are tested with real servers (ColdScanTest).
      return CompletableFuture.failedFuture(NyalaException.illegalState("not asked here"));
    }
  }
}
