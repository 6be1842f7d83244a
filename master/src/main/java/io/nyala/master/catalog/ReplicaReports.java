package io.nyala.master.catalog;

import io.nyala.common.proto.RaftRolePB;
import io.nyala.common.proto.master.ReportedTabletPB;
import io.nyala.common.proto.master.TabletStatePB;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What tservers last reported about each tablet replica, and each tablet's leader. In memory
 * only: a new leader master asks every tserver for a full report instead of trusting old news.
 * Thread-safe through concurrent maps; each tablet's leader is replaced atomically and only by a
 * report of an equal or higher term, so the leader with the highest term wins.
 *
 * <p>A hibernated tablet (docs/dense-nodes.md) has no leader: once its leader reports itself
 * HIBERNATED, or every reported replica of it is, the leader is forgotten and the tablet is
 * cold at the term its group closed at. While cold only a leader of a higher term is taken (a
 * woken group always elects at a higher term), so a late report from before the hibernation
 * cannot bring the old leader back; the one exception is a replica that itself says it leads at
 * that term without having reported HIBERNATED at it (a round abandoned after some followers
 * closed, which a new master may have heard of first).
 */
public final class ReplicaReports {
  /**
   * One replica's last report; {@code copying}: it is being rebuilt by tablet copy (a joiner in
   * progress, see docs/data-safety.md).
   */
  public record ReplicaState(TabletStatePB state, RaftRolePB role, long term,
      int schemaVersion, boolean copying) {}

  /** A tablet's leader as last reported. */
  public record Leader(String uuid, long term) {}

  /**
   * A tablet's leadership: a leader, or none because the group hibernated at {@code term}
   * ({@code uuid} null).
   */
  private record Lead(String uuid, long term) {
    boolean cold() {
      return uuid == null;
    }

    Leader leader() {
      return cold() ? null : new Leader(uuid, term);
    }
  }

  /** How many replicas a tserver last reported awake (RUNNING or BOOTSTRAPPING) and cold. */
  public record HotCold(int awake, int hibernated) {
    /** No replica reported. */
    public static final HotCold NONE = new HotCold(0, 0);

    /** The sum of both counts. */
    public HotCold plus(HotCold o) {
      return new HotCold(awake + o.awake, hibernated + o.hibernated);
    }

    static HotCold of(TabletStatePB state) {
      return switch (state) {
        case RUNNING, BOOTSTRAPPING -> new HotCold(1, 0);
        case HIBERNATED -> new HotCold(0, 1);
        default -> NONE;
      };
    }
  }

  /** tablet id → tserver uuid → state. */
  private final Map<String, Map<String, ReplicaState>> replicas = new ConcurrentHashMap<>();
  private final Map<String, Lead> leaders = new ConcurrentHashMap<>();
  /** Told a tablet id after its leader changed (the change is visible by then). */
  private final Consumer<String> leaderChanged;

  public ReplicaReports() {
    this(id -> { });
  }

  public ReplicaReports(Consumer<String> leaderChanged) {
    this.leaderChanged = leaderChanged;
  }

  /** Records one reported replica; returns the tablet's leader afterwards (or null). */
  public Leader update(String tsUuid, ReportedTabletPB r) {
    String tabletId = r.getTabletId();
    ReplicaState prev = replicas.computeIfAbsent(tabletId, k -> new ConcurrentHashMap<>())
        .put(tsUuid, stateOf(r));
    if (r.getState() == TabletStatePB.HIBERNATED) {
      return hibernated(tabletId, tsUuid, r.getTerm());
    }
    String leaderUuid = r.getRole() == RaftRolePB.LEADER ? tsUuid : r.getLeaderUuid();
    if (leaderUuid.isEmpty()) {
      return leader(tabletId);
    }
    // A replica that never closed at this term and says it leads: its group's hibernation was
    // abandoned (a follower that had closed is woken back under the same leader and term).
    boolean neverClosed = r.getRole() == RaftRolePB.LEADER && (prev == null
        || prev.state() != TabletStatePB.HIBERNATED || prev.term() < r.getTerm());
    Lead reported = new Lead(leaderUuid, r.getTerm());
    Lead before = leaders.get(tabletId);
    Lead after = leaders.merge(tabletId, reported, (old1, neu) -> newer(old1, neu, neverClosed));
    if (before == null || !Objects.equals(before.uuid(), after.uuid())) {
      leaderChanged.accept(tabletId);
    }
    return after.leader();
  }

  /**
   * The later of two leaderships: a higher term wins. Over cold at the same term only a leader
   * that says so itself and {@code neverClosed} wins; anyone else's word at that term may be a
   * report from before the hibernation, processed late.
   */
  private static Lead newer(Lead old, Lead neu, boolean neverClosed) {
    if (old.cold()) {
      return neu.term() > old.term() || neu.term() == old.term() && neverClosed ? neu : old;
    }
    return neu.term() >= old.term() ? neu : old;
  }

  /**
   * A replica reported HIBERNATED at {@code term}: the tablet turns cold if that replica led at
   * that term or older, or if every reported replica of the tablet is hibernated.
   */
  private Leader hibernated(String tabletId, String tsUuid, long term) {
    Lead before = leaders.get(tabletId);
    boolean leaderClosed = before != null && !before.cold() && before.uuid().equals(tsUuid)
        && term >= before.term();
    if (!leaderClosed && !allHibernated(tabletId)) {
      return before == null ? null : before.leader();
    }
    long closedAt = Math.max(term, maxHibernatedTerm(tabletId));
    Lead after = leaders.merge(tabletId, new Lead(null, closedAt), (old, neu) ->
        old.term() > neu.term() && !old.cold() ? old : new Lead(null,
            Math.max(old.term(), neu.term())));
    if ((before == null || !before.cold()) && after.cold()) {
      leaderChanged.accept(tabletId);
    }
    return after.leader();
  }

  private boolean allHibernated(String tabletId) {
    Map<String, ReplicaState> m = replicas.get(tabletId);
    return m != null && !m.isEmpty()
        && m.values().stream().allMatch(s -> s.state() == TabletStatePB.HIBERNATED);
  }

  private long maxHibernatedTerm(String tabletId) {
    Map<String, ReplicaState> m = replicas.getOrDefault(tabletId, Map.of());
    return m.values().stream().filter(s -> s.state() == TabletStatePB.HIBERNATED)
        .mapToLong(ReplicaState::term).max().orElse(0);
  }

  private static ReplicaState stateOf(ReportedTabletPB r) {
    return new ReplicaState(r.getState(), r.getRole(), r.getTerm(), r.getSchemaVersion(),
        r.getTabletCopyInProgress());
  }

  /**
   * Records the report of a replica that is not (yet) in the catalog's list, so a joiner's copy
   * progress is visible; it never makes the reporter the tablet's leader.
   */
  public void updateOutsider(String tsUuid, ReportedTabletPB r) {
    replicas.computeIfAbsent(r.getTabletId(), k -> new ConcurrentHashMap<>())
        .put(tsUuid, stateOf(r));
  }

  /** The tserver no longer hosts the tablet. */
  public void remove(String tsUuid, String tabletId) {
    Map<String, ReplicaState> m = replicas.get(tabletId);
    if (m != null) {
      m.remove(tsUuid);
    }
    Lead before = leaders.get(tabletId);
    if (before != null && tsUuid.equals(before.uuid())
        && leaders.computeIfPresent(tabletId, (k, l) -> tsUuid.equals(l.uuid()) ? null : l)
            == null) {
      leaderChanged.accept(tabletId);
    }
  }

  /** After a full report: the tserver hosts exactly {@code reported}; forget the rest. */
  public void retainOnly(String tsUuid, Set<String> reported) {
    for (String tabletId : replicas.keySet()) {
      if (!reported.contains(tabletId)) {
        remove(tsUuid, tabletId);
      }
    }
  }

  /** A deleted tablet: forget it entirely. */
  public void forget(String tabletId) {
    replicas.remove(tabletId);
    leaders.remove(tabletId);
  }

  /** The tablet's leader, or null if none was reported or its group hibernated. */
  public Leader leader(String tabletId) {
    Lead l = leaders.get(tabletId);
    return l == null ? null : l.leader();
  }

  /**
   * Whether the tablet's group hibernated (no leader since): its locations name no leader and
   * callers send to any replica, which wakes the group.
   */
  public boolean isHibernated(String tabletId) {
    return hibernatedAt(tabletId) >= 0;
  }

  /** The term the tablet's group hibernated at, or -1 if it has a leader or none is known. */
  public long hibernatedAt(String tabletId) {
    Lead l = leaders.get(tabletId);
    return l != null && l.cold() ? l.term() : -1;
  }

  /**
   * Whom to send a call that needs the tablet's leader (ChangeConfig, AlterSchema): the known
   * leader if {@code usable}. With no leader known (a hibernated group, or none reported yet),
   * or a dead leader while every usable replica reports HIBERNATED (the group closed before its
   * leader's last report), one of the usable {@code peers}, picked by {@code attempt} so retries
   * go round them: any replica wakes a hibernated group and answers NOT_LEADER naming the new
   * leader (docs/dense-nodes.md). Null: wait (a live group is electing, or none is usable).
   */
  public String callTarget(String tabletId, List<String> peers, Predicate<String> usable,
      long attempt) {
    Leader l = leader(tabletId);
    if (l != null && usable.test(l.uuid())) {
      return l.uuid();
    }
    List<String> candidates = peers.stream().filter(usable).toList();
    if (candidates.isEmpty()) {
      return null;
    }
    if (l != null && !candidates.stream().allMatch(u -> {
      ReplicaState r = replica(tabletId, u);
      return r != null && r.state() == TabletStatePB.HIBERNATED;
    })) {
      return null;
    }
    return candidates.get((int) Math.floorMod(attempt, (long) candidates.size()));
  }

  /** The replicas' last reports by tserver uuid (a copy; empty if none). */
  public Map<String, ReplicaState> replicasOf(String tabletId) {
    return Map.copyOf(replicas.getOrDefault(tabletId, Map.of()));
  }

  /** Per tserver uuid: replicas last reported awake and hibernated (for pages and lists). */
  public Map<String, HotCold> hotColdByTserver() {
    Map<String, HotCold> out = new HashMap<>();
    replicas.values().forEach(m -> m.forEach((uuid, s) ->
        out.merge(uuid, HotCold.of(s.state()), HotCold::plus)));
    return out;
  }

  /** The replica's last report, or null. */
  public ReplicaState replica(String tabletId, String tsUuid) {
    Map<String, ReplicaState> m = replicas.get(tabletId);
    return m == null ? null : m.get(tsUuid);
  }

  public boolean hasReported(String tabletId, String tsUuid) {
    Map<String, ReplicaState> m = replicas.get(tabletId);
    return m != null && m.containsKey(tsUuid);
  }

  /** Forgets everything: a new leadership starts from fresh reports. */
  public void clear() {
    replicas.clear();
    leaders.clear();
  }
}
