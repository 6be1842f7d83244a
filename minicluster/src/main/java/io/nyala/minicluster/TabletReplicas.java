package io.nyala.minicluster;

import java.util.List;
import java.util.Optional;

/**
 * One tablet of a minicluster table: where the master places its replicas, and which of them
 * leads as the tablet servers themselves report it (the master's view lags by a heartbeat).
 *
 * @param tabletId the tablet's id
 * @param replicas the tablet servers holding a replica, in the master's order, running or not
 * @param leaderIndex the index of the tablet server that leads it, or -1 if none does now
 */
public record TabletReplicas(String tabletId, List<ServerInfo> replicas, int leaderIndex) {
  /** Copies the list. */
  public TabletReplicas {
    replicas = List.copyOf(replicas);
  }

  /** The replica that leads, if one does now. */
  public Optional<ServerInfo> leader() {
    return replicas.stream().filter(r -> r.index() == leaderIndex).findFirst();
  }

  /** The replicas other than the leader (all of them when none leads). */
  public List<ServerInfo> followers() {
    return replicas.stream().filter(r -> r.index() != leaderIndex).toList();
  }

  /** The tablet server indexes of the replicas, in the master's order. */
  public List<Integer> replicaIndexes() {
    return replicas.stream().map(ServerInfo::index).toList();
  }
}
