package io.nyala.itests;

/**
 * {@link ReReplicationIT} with replicas hibernating after {@link Hibernation#SHORT_IDLE_MS}:
 * the server stops while every replica is cold, so its tablets are re-replicated only if the
 * master wakes them, and the new replicas may hibernate in turn (docs/dense-nodes.md).
 */
class ReReplicationHibernatingIT extends ReReplicationIT {
  @Override
  boolean hibernating() {
    return true;
  }
}
