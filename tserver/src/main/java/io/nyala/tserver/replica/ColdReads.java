package io.nyala.tserver.replica;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.metadata.HibernatedStatePB;
import io.nyala.common.proto.tserver.ConfirmHibernatedRequestPB;
import io.nyala.tserver.consensus.BlockStoreOpener;
import io.nyala.tserver.replica.PeerChannel.Peer;
import io.nyala.tserver.tablet.BlockTabletStore;
import io.nyala.tserver.tablet.HistoryRetention;
import io.nyala.tserver.tablet.TabletStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scans of a hibernated replica answered from its flushed store, without waking its Raft group
 * (docs/dense-nodes.md, "Reading a cold tablet without waking it").
 *
 * <p>A HIBERNATED replica holds everything its group committed up to the index it closed at, on
 * disk. It may read that as the tablet's latest state once a majority of the group's voters
 * (itself included) are still closed at that same term and index: a write committed since would
 * be in the log of a majority, and any majority includes one of them, whose log has not moved.
 * So the replica asks its peers ({@code ConfirmHibernated}), and reads only if enough of them
 * say yes and it is itself still closed at that point afterwards (a replica leaves HIBERNATED
 * only through a wake, and a woken group closes again only at a later index). Anything else
 * (a peer awake, waking or closed elsewhere, no answer in time) answers "wake", and the scan
 * takes the normal path. A snapshot scan at an index the replica holds needs no question: a
 * committed entry is the same in every log.
 */
public final class ColdReads {
  private static final Logger LOG = LoggerFactory.getLogger(ColdReads.class);
  /** How long the peers may take to confirm before the scan wakes the group instead. */
  static final long CONFIRM_TIMEOUT_MS = 2_000;
  /** A cold store no scanner reads is closed after this long unused. */
  private static final long CLOSE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final TabletManager tablets;
  private final String selfUuid;
  private final PeerChannel channel;
  private final Predicate<String> busy;
  private final AtomicLong served = new AtomicLong();
  private final AtomicLong declined = new AtomicLong();

  /**
   * @param busy tablets with open scanners or copy sessions (a cold store they read stays open)
   */
  ColdReads(TabletManager tablets, String selfUuid, PeerChannel channel,
      Predicate<String> busy) {
    this.tablets = tablets;
    this.selfUuid = selfUuid;
    this.channel = channel;
    this.busy = busy;
  }

  /** A cold replica's store and the snapshot pinned on it for one scan. */
  public record Pinned(TabletStore store, long snapshot) {}

  /**
   * Pins a snapshot on the store of {@code tabletId}'s replica if it is HIBERNATED and may be
   * read without waking; null when the scan must take the normal path (wake the group).
   *
   * @param snapshot the snapshot index asked for (READ_AT_SNAPSHOT), 0 for the latest state
   * @param minIndex the latest state must hold this index (READ_YOUR_WRITES), else 0
   * @param deadlineNanos the caller's deadline (System.nanoTime); the peers get at most
   *     {@link #CONFIRM_TIMEOUT_MS} of it
   */
  public Pinned pin(String tabletId, long snapshot, long minIndex, long deadlineNanos) {
    TabletReplica r = tablets.get(tabletId);
    HibernatedStatePB h = closedAt(r);
    if (h == null || snapshot > h.getIndex() || minIndex > h.getIndex()) {
      return null;
    }
    if (snapshot <= 0 && !majorityStillClosed(r, h, deadlineNanos)) {
      declined.incrementAndGet();
      return null;
    }
    BlockTabletStore store;
    synchronized (r) {
      if (!sameClosedState(closedAt(r), h)) {
        declined.incrementAndGet();
        return null; // woken meanwhile: this point is no longer the latest
      }
      try {
        store = r.cold.open(() -> open(r, tablets.historyRetention()));
      } catch (RuntimeException e) {
        // A damaged store fails the scan as it would after a wake, which then marks it FAILED.
        LOG.warn("tablet {}: cannot open its store for a cold scan: {}", tabletId,
            e.getMessage());
        throw e;
      }
      if (snapshot > 0) {
        store.pin(snapshot);
      } else {
        snapshot = store.pinLatest(h.getIndex());
      }
    }
    served.incrementAndGet();
    return new Pinned(store, snapshot);
  }

  private BlockTabletStore open(TabletReplica r, HistoryRetention history) {
    BlockStoreOpener opener = r.storeOpener(null);
    opener.open(history, why -> LOG.warn("tablet {}: damage found by a cold scan: {}",
        r.tabletId(), why.getMessage()));
    return opener.store();
  }

  /** The state {@code r} closed at if it is HIBERNATED now, else null. */
  private static HibernatedStatePB closedAt(TabletReplica r) {
    synchronized (r) {
      return r.state() == ReplicaState.HIBERNATED && r.metadata().hasHibernated()
          ? r.metadata().getHibernated() : null;
    }
  }

  private static boolean sameClosedState(HibernatedStatePB now, HibernatedStatePB then) {
    return now != null && now.getTerm() == then.getTerm() && now.getIndex() == then.getIndex()
        && now.getHibernatedTimeMillis() == then.getHibernatedTimeMillis();
  }

  /**
   * Whether enough of the voters {@code h} names, with this server, are still closed at its term
   * and index for a majority; asks the others at once and waits for the answers it needs.
   */
  private boolean majorityStillClosed(TabletReplica r, HibernatedStatePB h, long deadlineNanos) {
    List<Peer> others = new ArrayList<>();
    boolean selfVotes = false;
    for (RaftPeerPB p : h.getPeersList()) {
      if (p.getUuid().equals(selfUuid)) {
        selfVotes = true;
      } else if (p.hasRpcAddress()) {
        others.add(new Peer(p.getUuid(), HostPort.fromPb(p.getRpcAddress())));
      }
    }
    int majority = h.getPeersCount() / 2 + 1;
    int needed = majority - 1;
    if (!selfVotes || others.size() < needed) {
      return false;
    }
    if (needed == 0) {
      return true;
    }
    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    long timeoutMs = Math.min(CONFIRM_TIMEOUT_MS, leftMs);
    if (timeoutMs <= 0) {
      return false;
    }
    ConfirmHibernatedRequestPB req = ConfirmHibernatedRequestPB.newBuilder()
        .setTabletId(r.tabletId()).setTerm(h.getTerm()).setIndex(h.getIndex())
        .setRequestorUuid(selfUuid).build();
    AtomicInteger yes = new AtomicInteger();
    AtomicInteger no = new AtomicInteger();
    CountDownLatch decided = new CountDownLatch(1);
    int canRefuse = others.size() - needed;
    for (Peer p : others) {
      CompletableFuture<Void> f;
      try {
        f = channel.confirmHibernated(p, req, timeoutMs);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      f.whenComplete((v, t) -> {
        if (t == null ? yes.incrementAndGet() >= needed : no.incrementAndGet() > canRefuse) {
          decided.countDown();
        }
      });
    }
    try {
      decided.await(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return yes.get() >= needed;
  }

  /**
   * The ConfirmHibernated RPC: returns if this server's replica of {@code tabletId} is HIBERNATED
   * at exactly {@code term} and {@code index}; ILLEGAL_STATE saying what it is otherwise.
   */
  public void confirm(String tabletId, long term, long index) {
    TabletReplica r = tablets.get(tabletId);
    HibernatedStatePB h = closedAt(r);
    if (h == null) {
      throw NyalaException.illegalState("tablet %s: replica is %s, not hibernated", tabletId,
          r.state());
    }
    if (h.getTerm() != term || h.getIndex() != index) {
      throw NyalaException.illegalState("tablet %s: replica hibernated at term %d index %d, not "
          + "at term %d index %d", tabletId, h.getTerm(), h.getIndex(), term, index);
    }
  }

  /** Closes the cold stores of replicas no scanner has read for a while (each hibernation pass). */
  void closeUnused(TabletReplica r, long now) {
    if (r.cold.closeIfUnused(now, CLOSE_AFTER_NANOS, busy.test(r.tabletId()))) {
      LOG.debug("tablet {}: closed the store of its cold scans", r.tabletId());
    }
  }

  /** Scans answered from a cold replica's store. */
  public long served() {
    return served.get();
  }

  /** Scans of a cold replica that woke it because its peers did not confirm its state. */
  public long declined() {
    return declined.get();
  }
}
