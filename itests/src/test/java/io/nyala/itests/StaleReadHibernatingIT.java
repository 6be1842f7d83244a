package io.nyala.itests;

/**
 * {@link StaleReadIT} with replicas hibernating after {@link Hibernation#SHORT_IDLE_MS}: each
 * round's tablet goes cold and is woken by a write before its leader is frozen, and the
 * isolated old leader's group may try to hibernate around it (docs/dense-nodes.md).
 */
class StaleReadHibernatingIT extends StaleReadIT {
  @Override
  boolean hibernating() {
    return true;
  }
}
