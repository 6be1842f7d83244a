package io.nyala.tserver.replica;

import io.nyala.common.NyalaException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The replicas hosted on this server, by tablet id. Lookups and updates are lock-free; who adds
 * and removes a replica (create, start-up, delete) is serialised by {@link TabletManager}.
 */
final class HostedReplicas {
  private final Map<String, TabletReplica> byId = new ConcurrentHashMap<>();

  /** The replica of {@code tabletId}, or NOT_FOUND. */
  TabletReplica get(String tabletId) {
    TabletReplica r = byId.get(tabletId);
    if (r == null) {
      throw NyalaException.notFound("tablet %s not found", tabletId);
    }
    return r;
  }

  /** The replica of {@code tabletId}, or null. */
  TabletReplica find(String tabletId) {
    return byId.get(tabletId);
  }

  boolean contains(String tabletId) {
    return byId.containsKey(tabletId);
  }

  void put(TabletReplica r) {
    byId.put(r.tabletId(), r);
  }

  void remove(String tabletId) {
    byId.remove(tabletId);
  }

  /** A copy: callers iterate while replicas come and go. */
  Collection<TabletReplica> all() {
    return List.copyOf(byId.values());
  }

  int count() {
    return byId.size();
  }
}
