package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network partitions of a minicluster in force now. Each server's cut-off set is the union,
 * over the partitions, of the other side's uuids; every change recomputes them all and hands
 * each to its {@link ServerNode}, which tells the server (in this JVM directly, in a process
 * over RPC) and again after it restarts (docs/testing.md, "Network partitions").
 */
final class NetworkPartitions {
  private static final Logger LOG = LoggerFactory.getLogger(NetworkPartitions.class);

  private final boolean enabled;
  private final List<ServerNode> nodes;
  private final Function<ServerInfo, ServerNode> resolve;
  /** Partition → the two sides' nodes. Guarded by this. */
  private final Map<NetworkPartition, List<List<ServerNode>>> active = new HashMap<>();

  NetworkPartitions(boolean enabled, List<ServerNode> nodes,
      Function<ServerInfo, ServerNode> resolve) {
    this.enabled = enabled;
    this.nodes = List.copyOf(nodes);
    this.resolve = resolve;
  }

  /**
   * Cuts {@code side} off from {@code otherSide}.
   *
   * @throws NyalaException INVALID_ARGUMENT for an empty side, a server on both sides or one
   *     that never started (its uuid is not known yet); ILLEGAL_STATE if the cluster was built
   *     without network partitions
   */
  synchronized NetworkPartition partition(Collection<ServerInfo> side,
      Collection<ServerInfo> otherSide) {
    if (!enabled) {
      throw NyalaException.illegalState("cannot partition: this minicluster was built with "
          + "networkPartitions(false)");
    }
    List<ServerNode> a = nodesOf("side", side);
    List<ServerNode> b = nodesOf("otherSide", otherSide);
    for (ServerNode n : a) {
      if (b.contains(n)) {
        throw NyalaException.invalidArgument("cannot partition: server %s is on both sides",
            n.name());
      }
    }
    NetworkPartition p = new NetworkPartition(names(a), names(b), this);
    active.put(p, List.of(a, b));
    LOG.info("network {}", p);
    apply();
    return p;
  }

  synchronized void heal(NetworkPartition p) {
    if (active.remove(p) != null) {
      LOG.info("network {} healed", p);
      apply();
    }
  }

  synchronized void healAll() {
    active.clear();
    apply();
  }

  private List<ServerNode> nodesOf(String what, Collection<ServerInfo> servers) {
    if (servers.isEmpty()) {
      throw NyalaException.invalidArgument("cannot partition: %s is empty", what);
    }
    Set<ServerNode> out = new LinkedHashSet<>();
    for (ServerInfo s : servers) {
      ServerNode n = resolve.apply(s);
      if (n.info().uuid().isEmpty()) {
        throw NyalaException.invalidArgument("cannot partition: server %s has never started, so "
            + "its uuid is not known", n.name());
      }
      out.add(n);
    }
    return new ArrayList<>(out);
  }

  private static List<String> names(List<ServerNode> ns) {
    return ns.stream().map(ServerNode::name).toList();
  }

  /** Hands every server its cut-off set as the partitions in force now make it. */
  private void apply() {
    Map<ServerNode, Set<String>> cut = new HashMap<>();
    for (List<List<ServerNode>> sides : active.values()) {
      cutOff(cut, sides.get(0), sides.get(1));
      cutOff(cut, sides.get(1), sides.get(0));
    }
    for (ServerNode n : nodes) {
      n.cutOff(cut.getOrDefault(n, Set.of()));
    }
  }

  private static void cutOff(Map<ServerNode, Set<String>> cut, List<ServerNode> from,
      List<ServerNode> to) {
    for (ServerNode n : from) {
      Set<String> s = cut.computeIfAbsent(n, k -> new HashSet<>());
      to.forEach(t -> s.add(t.info().uuid()));
    }
  }
}
