package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.tserver.HibernateReplicaRequestPB;
import io.nyala.common.proto.tserver.WakeReplicaRequestPB;
import io.nyala.tserver.replica.PeerChannel.Peer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The hibernation protocol, apart from Ratis (docs/dense-nodes.md, "Hibernate"): the leader
 * asks every follower to hibernate at its term and last index, and closes its own group only
 * when all agreed; on any refusal or timeout it wakes the followers that had agreed. A follower
 * agrees only at exactly that term and index ({@link #refusal}), so no entry the leader might
 * still commit can be stranded on a closed replica.
 *
 * <p>Only liveness depends on the messages: a lost hibernate request aborts the round, a lost
 * wake leaves a follower cold until {@link ReplicaHealer} wakes it again.
 */
final class HibernationRound {
  /** How this replica's Raft group stands: what a hibernate request is checked against. */
  record Position(long term, long lastIndex, long commitIndex, long appliedIndex,
      long flushIndex) {}

  /** The leader's own replica as the round needs it. */
  interface Self {
    String tabletId();

    String uuid();

    /**
     * Closes this replica's group if it is still at {@code term} and {@code index}; returns
     * null when it did, else why not.
     */
    String hibernate(long term, long index);
  }

  /** What a round did: whether the tablet is cold, and what each follower answered. */
  record Outcome(boolean hibernated, Map<String, String> refusals, List<String> woken) {}

  private HibernationRound() {}

  /**
   * Why a replica at {@code actual} must refuse to hibernate at {@code term} and {@code index},
   * or null if it may: its log must end there, committed, applied and on disk.
   */
  static String refusal(Position actual, long term, long index) {
    if (actual.term() != term) {
      return "its group is at term " + actual.term() + ", not " + term;
    }
    if (actual.lastIndex() != index || actual.commitIndex() != index
        || actual.appliedIndex() != index || actual.flushIndex() != index) {
      return "its log ends at index " + actual.lastIndex() + " (committed "
          + actual.commitIndex() + ", applied " + actual.appliedIndex() + ", flushed "
          + actual.flushIndex() + "), not " + index;
    }
    return null;
  }

  /**
   * Runs one round for {@code self}, the leader at {@code term} whose log ends at
   * {@code index}; {@code followers} are every other member of its configuration.
   */
  static Outcome run(Self self, long term, long index, List<Peer> followers, PeerChannel channel,
      long timeoutMs) {
    HibernateReplicaRequestPB req = HibernateReplicaRequestPB.newBuilder()
        .setTabletId(self.tabletId()).setTerm(term).setIndex(index).setLeaderUuid(self.uuid())
        .build();
    Map<Peer, CompletableFuture<Void>> asks = new LinkedHashMap<>();
    for (Peer p : followers) {
      asks.put(p, channel.hibernate(p, req, timeoutMs)
          .orTimeout(timeoutMs, TimeUnit.MILLISECONDS));
    }
    List<Peer> agreed = new ArrayList<>();
    Map<String, String> refusals = new LinkedHashMap<>();
    for (Map.Entry<Peer, CompletableFuture<Void>> e : asks.entrySet()) {
      try {
        e.getValue().join();
        agreed.add(e.getKey());
      } catch (CompletionException | java.util.concurrent.CancellationException t) {
        refusals.put(e.getKey().uuid(), reason(t));
      }
    }
    if (refusals.isEmpty()) {
      String mine;
      try {
        mine = self.hibernate(term, index);
      } catch (RuntimeException e) {
        mine = reason(e);
      }
      if (mine == null) {
        return new Outcome(true, Map.of(), List.of());
      }
      refusals.put(self.uuid(), mine);
    }
    return new Outcome(false, refusals, wake(self, agreed, channel, timeoutMs));
  }

  /** Best effort: wakes {@code peers}; returns the uuids asked. A lost wake heals later. */
  static List<String> wake(Self self, List<Peer> peers, PeerChannel channel, long timeoutMs) {
    WakeReplicaRequestPB req = WakeReplicaRequestPB.newBuilder().setTabletId(self.tabletId())
        .setRequestorUuid(self.uuid()).build();
    List<String> asked = new ArrayList<>();
    for (Peer p : peers) {
      channel.wake(p, req, timeoutMs);
      asked.add(p.uuid());
    }
    return asked;
  }

  private static String reason(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    if (c instanceof java.util.concurrent.TimeoutException) {
      return "no answer in time";
    }
    return c instanceof NyalaException ne ? ne.detail() : String.valueOf(c.getMessage());
  }
}
