package io.nyala.itests;

import java.util.List;

/**
 * {@link KillTserverIT} with replicas hibernating after {@link Hibernation#SHORT_IDLE_MS}: every
 * tablet is left to go cold once the load stops, so every replica is verified through a wake
 * (docs/dense-nodes.md), and the restarted server rejoins groups that may hibernate under it.
 */
class KillTserverHibernatingIT extends KillTserverIT {
  @Override
  List<String> extraTserverFlags() {
    // Longer than a write's retry (3 s RPC timeout), short enough to go cold after the load.
    return List.of(Hibernation.SHORT_IDLE_FLAG, Hibernation.retryWindowFlag(8_000));
  }

  @Override
  boolean coldBeforeVerify() {
    return true;
  }
}
