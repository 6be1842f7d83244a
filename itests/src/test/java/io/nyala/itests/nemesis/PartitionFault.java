package io.nyala.itests.nemesis;

import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NetworkPartition;
import io.nyala.minicluster.ServerInfo;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Cuts the cluster's network in two (both Nyala RPC and Raft traffic, docs/testing.md, "Network
 * partitions"); healing joins it again. Two shapes, picked at random: the leader of a random
 * tablet alone against every other server (a leader in a minority of one), or the servers
 * shuffled and split into two random halves, which may leave the master with either side.
 */
final class PartitionFault implements Fault {
  private final MiniCluster cluster;
  private final List<String> tabletIds;
  /** The partition in force, null when none; touched by the nemesis thread only. */
  private NetworkPartition cut;

  PartitionFault(MiniCluster cluster, List<String> tabletIds) {
    this.cluster = cluster;
    this.tabletIds = List.copyOf(tabletIds);
  }

  @Override
  public String name() {
    return "partition";
  }

  @Override
  public String apply(Random random) {
    List<ServerInfo> all = cluster.servers();
    List<ServerInfo> side = new ArrayList<>();
    List<ServerInfo> other = new ArrayList<>();
    String shape;
    int leader = random.nextBoolean()
        ? cluster.tablets().leaderIndex(tabletIds.get(random.nextInt(tabletIds.size()))) : -1;
    if (leader >= 0) {
      ServerInfo isolated = cluster.tabletServer(leader);
      side.add(isolated);
      all.stream().filter(s -> !s.equals(isolated)).forEach(other::add);
      shape = "leader " + isolated.name() + " alone";
    } else {
      List<ServerInfo> shuffled = new ArrayList<>(all);
      Collections.shuffle(shuffled, random);
      int split = 1 + random.nextInt(shuffled.size() - 1);
      side.addAll(shuffled.subList(0, split));
      other.addAll(shuffled.subList(split, shuffled.size()));
      shape = "random halves";
    }
    cut = cluster.partition(side, other);
    return shape + ": " + cut;
  }

  @Override
  public void heal() {
    if (cut != null) {
      NetworkPartition healed = cut;
      cut = null;
      healed.heal();
    }
  }
}
