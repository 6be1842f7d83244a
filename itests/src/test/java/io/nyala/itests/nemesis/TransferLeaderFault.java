package io.nyala.itests.nemesis;

import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.TabletReplicas;
import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * Moves the leadership of a random tablet to another of its replicas, chosen at random. Nothing
 * to heal: the new leader is as good as the old one.
 */
final class TransferLeaderFault implements Fault {
  private static final Duration TIMEOUT = Duration.ofSeconds(15);

  private final MiniCluster cluster;
  private final List<String> tabletIds;

  TransferLeaderFault(MiniCluster cluster, List<String> tabletIds) {
    this.cluster = cluster;
    this.tabletIds = List.copyOf(tabletIds);
  }

  @Override
  public String name() {
    return "transfer-leader";
  }

  @Override
  public String apply(Random random) {
    String tablet = tabletIds.get(random.nextInt(tabletIds.size()));
    cluster.tablets().awaitLeader(tablet, TIMEOUT);
    TabletReplicas replicas = cluster.tablets().tablet(tablet);
    List<ServerInfo> others = replicas.followers();
    if (replicas.leaderIndex() < 0 || others.isEmpty()) {
      throw new IllegalStateException("tablet " + tablet + ": no leader and follower to move "
          + "leadership between: " + replicas);
    }
    ServerInfo to = others.get(random.nextInt(others.size()));
    cluster.tablets().transferLeadership(tablet, to.index(), TIMEOUT);
    return "tablet " + tablet + " from " + cluster.tabletServer(replicas.leaderIndex()).name()
        + " to " + to.name();
  }

  @Override
  public void heal() {}
}
