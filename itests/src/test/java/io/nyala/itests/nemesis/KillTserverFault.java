package io.nyala.itests.nemesis;

import io.nyala.minicluster.MiniCluster;
import java.util.Random;

/** SIGKILLs a random running tablet server; healing starts it again on its directories. */
final class KillTserverFault implements Fault {
  private final MiniCluster cluster;
  /** The killed server's index, -1 when none; touched by the nemesis thread only. */
  private int killed = -1;

  KillTserverFault(MiniCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "kill-tserver";
  }

  @Override
  public String apply(Random random) {
    killed = random.nextInt(cluster.numTabletServers());
    cluster.killTabletServer(killed);
    return "SIGKILL " + cluster.tabletServer(killed).name();
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
