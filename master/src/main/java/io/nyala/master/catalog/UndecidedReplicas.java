package io.nyala.master.catalog;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the report processor must look at again without waiting for another report: a tablet
 * server re-sends a replica's report only when it changed, so a verdict taken on the first
 * report would otherwise be final (docs/data-safety.md, "Deletes").
 *
 * <ul>
 *   <li><b>Undecided replicas</b>: reported outside their tablet's catalog list but not deleted
 *       (no committed configuration proves the exclusion yet, a joiner, or a DeleteTablet that
 *       failed or was refused).
 *   <li><b>Changed tablets</b>: tablets whose catalog entry changed since the processor last
 *       looked, so any replica reported for them may have stopped being a member.
 *   <li><b>Retries</b>: replicas whose DeleteTablet did not reach their tablet server, retried
 *       when that server heartbeats again.
 * </ul>
 *
 * <p>In memory only, like the reports: a new leader master starts from full reports. Thread-safe
 * through concurrent collections; entries are few (only replicas outside their lists and
 * tablets changed since the last pass), so nothing here grows with the replicas of a dense node.
 */
final class UndecidedReplicas {
  /** tablet id → tserver uuid → whether the replica reported a tablet copy in progress. */
  private final Map<String, Map<String, Boolean>> undecided = new ConcurrentHashMap<>();
  private final Set<String> changed = ConcurrentHashMap.newKeySet();
  /** tserver uuid → tablets whose DeleteTablet to it failed to arrive. */
  private final Map<String, Set<String>> retries = new ConcurrentHashMap<>();

  /** Remembers a replica whose fate is not decided yet. */
  void hold(String tabletId, String tsUuid, boolean copying) {
    undecided.computeIfAbsent(tabletId, k -> new ConcurrentHashMap<>()).put(tsUuid, copying);
  }

  /** The replica is decided (a member, deleted) or gone. */
  void release(String tabletId, String tsUuid) {
    undecided.computeIfPresent(tabletId, (k, m) -> {
      m.remove(tsUuid);
      return m.isEmpty() ? null : m;
    });
  }

  /** After a full report: the tserver hosts only {@code reported}. */
  void retainOnly(String tsUuid, Set<String> reported) {
    for (String tabletId : undecided.keySet()) {
      if (!reported.contains(tabletId)) {
        release(tabletId, tsUuid);
      }
    }
    Set<String> r = retries.get(tsUuid);
    if (r != null) {
      r.retainAll(reported);
    }
  }

  /** The undecided replicas of a tablet: tserver uuid → copy in progress (a copy). */
  Map<String, Boolean> of(String tabletId) {
    return Map.copyOf(undecided.getOrDefault(tabletId, Map.of()));
  }

  /** The tablet's catalog entry changed: look at its reported replicas again. */
  void changed(String tabletId) {
    changed.add(tabletId);
  }

  /** Takes the tablets changed since the last call. */
  List<String> drainChanged() {
    List<String> out = List.copyOf(changed);
    out.forEach(changed::remove);
    return out;
  }

  /** A DeleteTablet to {@code tsUuid} did not arrive: retry at its next heartbeat. */
  void retryAtHeartbeat(String tsUuid, String tabletId) {
    retries.computeIfAbsent(tsUuid, k -> ConcurrentHashMap.newKeySet()).add(tabletId);
  }

  /** The tserver heartbeated: the tablets whose delete to it is to be retried are changed. */
  void heartbeatFrom(String tsUuid) {
    Set<String> r = retries.remove(tsUuid);
    if (r != null) {
      r.forEach(changed::add);
    }
  }

  /** Forgets everything: a new leadership starts from fresh reports. */
  void clear() {
    undecided.clear();
    changed.clear();
    retries.clear();
  }
}
