package io.nyala.itests;

import java.util.List;

/**
 * {@link KillTserverIT} with replicas hibernating after {@link Hibernation#SHORT_IDLE_MS}: the
 * tablets go cold as soon as the load stops, so every replica is verified through a wake
 * (docs/dense-nodes.md), and the restarted server rejoins groups that may hibernate under it.
 */
class KillTserverHibernatingIT extends KillTserverIT {
  @Override
  List<String> extraTserverFlags() {
    return List.of(Hibernation.SHORT_IDLE_FLAG);
  }
}
