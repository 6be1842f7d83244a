package io.nyala.master;

import io.nyala.common.server.ServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The master's flags on top of every server's. Fixed at start unless a flag says otherwise. */
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

  @Option(names = "--max_create_tablets_per_ts", defaultValue = "60",
      description = "CreateTable fails if it would place more than this many replicas per live "
          + "tablet server (tablets x replication factor / live tablet servers).")
  public int maxCreateTabletsPerTs = 60;

  @Option(names = "--rereplication_retry_ms", defaultValue = "10000",
      description = "After a failed replacement of a dead tablet server's replica, wait this "
          + "long before trying that tablet again; also how long a replacement may take (ms).")
  public long rereplicationRetryMs = 10000;

  @Option(names = "--rereplication_change_config_timeout_ms", defaultValue = "120000",
      description = "How long a replacement's ChangeConfig may wait for the new replica to copy "
          + "the tablet and the new configuration to commit (ms); sent to the tablet's leader "
          + "as the request's deadline, so the master never gives up on a move that is still "
          + "copying (docs/data-safety.md). Default: ${DEFAULT-VALUE}.")
  public long rereplicationChangeConfigTimeoutMs = 120000;

  @Option(names = "--max_table_locations", defaultValue = "1000",
      description = "Tablets returned by GetTableLocations when the request asks for 0.")
  public int maxTableLocations = 1000;

  @Option(names = "--table_locations_cache_capacity_mb", defaultValue = "128",
      description = "Capacity of the GetTableLocations response cache (MiB, estimated bytes of "
          + "keys and responses); 0 turns it off. The only master flag that may change at run "
          + "time (TableLocationsCache.setCapacityMb).")
  public long tableLocationsCacheCapacityMb = 128;

  @Option(names = "--catalog_snapshot_threshold_entries", defaultValue = "10000",
      description = "Snapshot the sys catalog after this many log entries (Ratis auto-trigger).")
  public long catalogSnapshotThresholdEntries = 10000;

  @Option(names = "--master_discovery_timeout_ms", defaultValue = "120000",
      description = "At the first start of a multi-master cluster, how long to wait for every "
          + "master of --master_addresses to answer with its uuid and Raft address (ms).")
  public long masterDiscoveryTimeoutMs = 120000;

  @Option(names = "--user_credentials_file", defaultValue = "",
      description = "File of user:password-hash lines (nyala user add) whose users may get an "
          + "authentication token with Authenticate; owner-only. Empty: no user can "
          + "(docs/architecture.md, \"Who may call what\").")
  public String userCredentialsFile = "";

  @Option(names = "--authn_token_validity_ms", defaultValue = "3600000",
      description = "How long a client's authentication token is valid (ms).")
  public long authnTokenValidityMs = 3_600_000;

  @Option(names = "--token_signing_key_rotation_ms", defaultValue = "86400000",
      description = "How often the leader master makes a new token signing key (ms); old keys "
          + "verify until the last token they signed expires.")
  public long tokenSigningKeyRotationMs = 86_400_000;

  @Option(names = "--tls_ca_key_file", defaultValue = "",
      description = "PEM (PKCS#8) key of the CA of --trusted_ca_file, owner-only: the leader "
          + "master imports that CA into the sys catalog (sealed) and issues servers' "
          + "certificates with it; without --tls_cert_file a master issues its own with it. "
          + "Read at start; needed only until the catalog holds it (and the master its "
          + "certificate). Empty: "
          + "the first leader makes a CA of its own (docs/architecture.md, \"TLS and the internal "
          + "CA\"). Not changeable at run time.")
  public String tlsCaKeyFile = "";

  @Override
  public String tlsCaKeyFile() {
    return tlsCaKeyFile;
  }

  @Option(names = "--server_certificate_validity_s", defaultValue = "31536000",
      description = "Validity of a certificate the master's CA issues to a server (s); servers "
          + "ask for a new one once two thirds of it passed. Default: ${DEFAULT-VALUE} (a year).")
  public long serverCertificateValiditySec = 31_536_000;
}
