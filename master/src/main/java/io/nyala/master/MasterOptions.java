package io.nyala.master;

import io.nyala.common.server.ServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The master's flags on top of every server's. None of them may change at run time. */
@Command(name = "nyala-master", description = "Runs a Nyala master.")
public class MasterOptions extends ServerOptions {
  @Option(names = "--help", usageHelp = true, description = "Show this help and exit.")
  public boolean help;

  @Option(names = "--tserver_unresponsive_timeout_ms", defaultValue = "60000",
      description = "A tablet server silent for longer is considered dead (ms).")
  public long tserverUnresponsiveTimeoutMs = 60000;

  @Option(names = "--heartbeat_interval_ms", defaultValue = "1000",
      description = "Heartbeat interval the master tells tablet servers to use (ms).")
  public long heartbeatIntervalMs = 1000;

  @Option(names = "--tablet_creation_retry_ms", defaultValue = "3000",
      description = "Re-send CreateTablet to replicas that have not reported the tablet after "
          + "this long (ms).")
  public long tabletCreationRetryMs = 3000;

  @Option(names = "--default_num_replicas", defaultValue = "3",
      description = "Replication factor of tables created with num_replicas = 0.")
  public int defaultNumReplicas = 3;

  @Option(names = "--max_table_locations", defaultValue = "1000",
      description = "Tablets returned by GetTableLocations when the request asks for 0.")
  public int maxTableLocations = 1000;

  @Option(names = "--catalog_snapshot_threshold_entries", defaultValue = "10000",
      description = "Snapshot the sys catalog after this many log entries (Ratis auto-trigger).")
  public long catalogSnapshotThresholdEntries = 10000;

  @Option(names = "--master_discovery_timeout_ms", defaultValue = "120000",
      description = "At the first start of a multi-master cluster, how long to wait for every "
          + "master of --master_addresses to answer with its uuid and Raft address (ms).")
  public long masterDiscoveryTimeoutMs = 120000;
}
