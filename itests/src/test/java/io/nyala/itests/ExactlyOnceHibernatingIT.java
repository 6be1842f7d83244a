package io.nyala.itests;

/**
 * {@link ExactlyOnceIT} with replicas hibernating after {@link Hibernation#SHORT_IDLE_MS}: the
 * write whose answer is withheld is the first one to a cold tablet, and the group may go cold
 * again before the client retries (docs/dense-nodes.md).
 */
class ExactlyOnceHibernatingIT extends ExactlyOnceIT {
  @Override
  boolean hibernating() {
    return true;
  }
}
