package io.nyala.common.fault;

import io.nyala.common.NyalaException;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network partition one server is in: the uuids of the servers it must not hear from
 * (docs/testing.md, "Network partitions"). Its filters ({@link RpcPartitionFilter} on Nyala's
 * RPC, {@link RaftPartitionFilter} on Ratis' listener) ask {@link #cutsOff} on every inbound
 * call and drop those from a blocked sender. Every server filters inbound, so a cut set on both
 * sides is symmetric.
 *
 * <p>Requirements: free when healed (one volatile read of an empty set); safe from any thread
 * (the blocked set is an immutable snapshot replaced whole); never turned on in production (a
 * server has one from its start, but only tests, in-process or through the
 * {@code --fault_enable_network_partitions} service, ever block a peer).
 */
public final class NetworkFaults {
  private static final Logger LOG = LoggerFactory.getLogger(NetworkFaults.class);

  private final String self;
  /** Immutable; replaced whole by {@link #block}. */
  private volatile Set<String> blocked = Set.of();
  private final LongAdder dropped = new LongAdder();

  /** @param self this server's name, for messages */
  public NetworkFaults(String self) {
    this.self = self;
  }

  /**
   * Replaces the set of servers this one does not hear from; an empty set heals it.
   *
   * @throws NyalaException INVALID_ARGUMENT naming a blank uuid
   */
  public void block(Collection<String> peerUuids) {
    Set<String> next = new TreeSet<>();
    for (String uuid : peerUuids) {
      if (uuid == null || uuid.isBlank()) {
        throw NyalaException.invalidArgument("%s: cannot cut off a server with blank uuid '%s'",
            self, uuid);
      }
      next.add(uuid);
    }
    if (!next.equals(blocked)) {
      LOG.warn("FAULT INJECTION: {} {}", self, next.isEmpty() ? "healed: hears from every server"
          : "does not hear from " + next);
    }
    blocked = Set.copyOf(next);
  }

  /** Hears from every server again. */
  public void heal() {
    block(Set.of());
  }

  /** The servers cut off now (a snapshot). */
  public Set<String> blocked() {
    return blocked;
  }

  /** Whether a call from {@code peerUuid} (null or empty: not a server) must be dropped. */
  public boolean cutsOff(String peerUuid) {
    Set<String> b = blocked;
    return !b.isEmpty() && peerUuid != null && b.contains(peerUuid);
  }

  /** Counts one dropped call and returns the message its sender gets. */
  String drop(String peerUuid) {
    dropped.increment();
    return "network partition injected: " + self + " does not hear from " + peerUuid;
  }

  /** Inbound calls dropped so far because their sender was cut off. */
  public long droppedCalls() {
    return dropped.sum();
  }
}
