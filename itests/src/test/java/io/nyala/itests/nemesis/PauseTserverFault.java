package io.nyala.itests.nemesis;

import io.nyala.minicluster.MiniCluster;
import java.util.Random;

/** SIGSTOPs a random tablet server; healing SIGCONTs it. */
final class PauseTserverFault implements Fault {
  private final MiniCluster cluster;
  /** The paused server's index, -1 when none; touched by the nemesis thread only. */
  private int paused = -1;

  PauseTserverFault(MiniCluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public String name() {
    return "pause-tserver";
  }

  @Override
  public String apply(Random random) {
    paused = random.nextInt(cluster.numTabletServers());
    cluster.pauseTabletServer(paused);
    return "SIGSTOP " + cluster.tabletServer(paused).name();
  }

  @Override
  public void heal() {
    if (paused >= 0) {
      int index = paused;
      paused = -1;
      cluster.resumeTabletServer(index);
    }
  }
}
