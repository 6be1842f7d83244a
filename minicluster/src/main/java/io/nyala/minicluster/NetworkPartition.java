package io.nyala.minicluster;

import java.util.List;

/**
 * One network partition of a {@link MiniCluster}, made by
 * {@link MiniCluster#partition(java.util.Collection, java.util.Collection)}: no server of one
 * side hears from any server of the other, on Nyala's RPC or on Raft, until {@link #heal()}.
 * Servers within a side, clients and the test itself are unaffected (docs/testing.md, "Network
 * partitions").
 */
public final class NetworkPartition {
  private final List<String> side;
  private final List<String> otherSide;
  private final NetworkPartitions owner;

  NetworkPartition(List<String> side, List<String> otherSide, NetworkPartitions owner) {
    this.side = List.copyOf(side);
    this.otherSide = List.copyOf(otherSide);
    this.owner = owner;
  }

  /** The names of the servers on the first side, e.g. {@code [ts-1]}. */
  public List<String> side() {
    return side;
  }

  /** The names of the servers on the other side. */
  public List<String> otherSide() {
    return otherSide;
  }

  /**
   * Restores traffic between the two sides (other partitions still hold). Returns once every
   * running server of both sides hears from the other side again; healing twice does nothing.
   */
  public void heal() {
    owner.heal(this);
  }

  @Override
  public String toString() {
    return "partition " + side + " | " + otherSide;
  }
}
