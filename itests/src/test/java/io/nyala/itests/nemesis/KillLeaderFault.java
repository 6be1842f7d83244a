package io.nyala.itests.nemesis;

import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import java.util.List;
import java.util.Random;

/** SIGKILLs the tablet server leading a random tablet; healing starts it again. */
final class KillLeaderFault implements Fault {
  private final MiniCluster cluster;
  private final List<String> tabletIds;
  /** The killed server's index, -1 when none; touched by the nemesis thread only. */
  private int killed = -1;

  KillLeaderFault(MiniCluster cluster, List<String> tabletIds) {
    this.cluster = cluster;
    this.tabletIds = List.copyOf(tabletIds);
  }

  @Override
  public String name() {
    return "kill-leader";
  }

  @Override
  public String apply(Random random) {
    String tablet = tabletIds.get(random.nextInt(tabletIds.size()));
    ServerInfo leader = cluster.tablets().killLeader(tablet);
    killed = leader.index();
    return "SIGKILL " + leader.name() + ", leader of tablet " + tablet;
  }

  @Override
  public void heal() {
    if (killed >= 0) {
      int index = killed;
      killed = -1;
      cluster.startTabletServer(index);
    }
  }
}
