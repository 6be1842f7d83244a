package io.nyala.minicluster;

import io.nyala.master.MasterServer;
import io.nyala.tserver.TabletServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where each server of a new minicluster lives and what it runs with: its directory under the
 * data root, its loopback address and ports (from {@link LoopbackAddresses}, so a data root
 * keeps the layout it was first started with), and its flags in the order that lets later ones
 * win: the minicluster's own defaults, the encryption flags, the flags that serve the fault
 * injection service to server processes (unless turned off), the builder's flags for every
 * server of the role, then a tablet server's own.
 */
final class ClusterLayout {
  /**
   * Tablet server flags a minicluster starts with, before the builder's own (which override
   * them): a block container grows by 1 MiB at a time instead of a server's 32 MiB, so a test
   * or local cluster with a few small tables takes megabytes of disk, not gigabytes
   * (docs/decisions.md, "Small preallocation in miniclusters"); and a clean stop does not
   * hibernate quiet groups first, so that a test's restart finds its groups as they were (awake
   * ones reopened, damage found at start); {@code local-cluster} and {@code bench dense-node}
   * turn that step back on (docs/dense-nodes.md, "A clean stop leaves quiet groups cold").
   */
  static final List<String> TSERVER_DEFAULTS =
      List.of("--log_container_preallocate_bytes=" + (1 << 20),
          "--tablet_hibernate_on_stop_ms=0");

  private final boolean localhost;
  private final ServerGroup masters;
  private final ServerGroup tservers;

  private ClusterLayout(boolean localhost, ServerGroup masters, ServerGroup tservers) {
    this.localhost = localhost;
    this.masters = masters;
    this.tservers = tservers;
  }

  /**
   * The cluster key file every server of an encrypting cluster shares (created by the first
   * server to start), in the data root.
   */
  static Path clusterKeyFile(Path dataRoot) {
    return dataRoot.resolve("cluster.key");
  }

  /** Lays out the servers the settings ask for under an existing {@code dataRoot}. */
  static ClusterLayout plan(Path dataRoot, ClusterSettings b, ClusterTls tls) {
    LoopbackAddresses.Plan plan = LoopbackAddresses.planFor(dataRoot,
        MasterServer.DEFAULT_RPC_PORT, b.localhostPorts,
        LoopbackAddresses.localhostPorts(b.numMasters, b.numTabletServers));
    List<String> first = new ArrayList<>(encryptionFlags(b.encryption, dataRoot));
    if (b.networkPartitions && b.mode == ProcessMode.EXTERNAL) {
      first.addAll(List.of(RemoteFaults.FLAGS));
    }
    // Encryption and fault flags go first so that flags given to the builder can still
    // override them.
    List<String> masterFlags = new ArrayList<>(first);
    masterFlags.addAll(b.masterFlags);
    List<String> tserverFlags = new ArrayList<>(TSERVER_DEFAULTS);
    tserverFlags.addAll(first);
    tserverFlags.addAll(b.tserverFlags);
    List<String> masterAddrs = new ArrayList<>();
    for (int i = 0; i < b.numMasters; i++) {
      masterAddrs.add(plan.host(ServerRole.MASTER, i) + ":"
          + plan.port(MasterServer.DEFAULT_RPC_PORT, i));
    }
    List<ServerNode> masters = new ArrayList<>();
    for (int i = 0; i < b.numMasters; i++) {
      masters.add(new ServerNode(ServerRole.MASTER, i, dataRoot, plan.host(ServerRole.MASTER, i),
          plan.port(MasterServer.DEFAULT_RPC_PORT, i), plan.port(MasterServer.DEFAULT_RAFT_PORT, i),
          plan.port(MasterServer.DEFAULT_WEB_PORT, i), masterAddrs, masterFlags, b.mode,
          b.jvmOptions, tls));
    }
    List<ServerNode> tservers = new ArrayList<>();
    for (int i = 0; i < b.numTabletServers; i++) {
      ServerNode ts = new ServerNode(ServerRole.TABLET_SERVER, i, dataRoot,
          plan.host(ServerRole.TABLET_SERVER, i), plan.port(TabletServer.DEFAULT_RPC_PORT, i),
          plan.port(TabletServer.DEFAULT_RAFT_PORT, i), plan.port(TabletServer.DEFAULT_WEB_PORT, i),
          masterAddrs, tserverFlags, b.mode, b.jvmOptions, tls);
      ts.setOwnFlags(b.ownTserverFlags.getOrDefault(i, List.of()));
      tservers.add(ts);
    }
    return new ClusterLayout(plan.localhost(), new ServerGroup(masters),
        new ServerGroup(tservers));
  }

  private static List<String> encryptionFlags(boolean on, Path dataRoot) {
    if (!on) {
      return List.of();
    }
    return List.of("--encrypt_data_at_rest=true",
        "--encryption_key_file=" + clusterKeyFile(dataRoot));
  }

  /** Whether the servers listen on 127.0.0.1 on the default ports plus 100 per server. */
  boolean localhost() {
    return localhost;
  }

  ServerGroup masters() {
    return masters;
  }

  ServerGroup tservers() {
    return tservers;
  }

  /** Every server, masters first. */
  List<ServerNode> nodes() {
    List<ServerNode> out = new ArrayList<>(masters.nodes());
    out.addAll(tservers.nodes());
    return out;
  }
}
