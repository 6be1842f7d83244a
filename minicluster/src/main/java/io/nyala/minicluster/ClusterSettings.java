package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What minicluster to make: how many servers of each role, where their data goes, how they run
 * and with which flags. {@link MiniCluster.Builder} is its one subclass and adds
 * {@link MiniCluster.Builder#build()}; these setters are the builder's public API.
 *
 * <p>The fields are package-private so that {@link ClusterLayout} and {@link MiniCluster} read
 * the settings when they make the cluster. Not thread-safe: one thread configures a builder.
 */
abstract class ClusterSettings {
  int numMasters = 1;
  int numTabletServers = 3;
  Path dataRoot;
  boolean keepData;
  long readyTimeoutMs = 60_000;
  ProcessMode mode = ProcessMode.IN_PROCESS;
  boolean encryption;
  boolean tserverCertificatesFromMaster;
  boolean tls = true;
  boolean localhostPorts;
  boolean networkPartitions = true;
  /**
   * Small heaps and a quick start: C1 only, and a first metaspace threshold above what a server
   * loads (40-60 MB), so that its start is not stopped twice by full collections that free
   * nothing ("Metadata GC Threshold", docs/performance.md, "Findings").
   */
  final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1", "-XX:MetaspaceSize=128m"));
  final List<String> masterFlags = new ArrayList<>();
  final List<String> tserverFlags = new ArrayList<>();
  final Map<Integer, List<String>> ownTserverFlags = new HashMap<>();

  /**
   * Number of masters (default 1). With several, every master gets all their addresses in
   * {@code --master_addresses} and they form the sys catalog's Raft group at first start;
   * tablet servers and clients get every address too. Use 3 to survive losing one.
   */
  public MiniCluster.Builder numMasters(int n) {
    if (n < 1) {
      throw NyalaException.invalidArgument("a cluster needs at least 1 master, got %d", n);
    }
    this.numMasters = n;
    return self();
  }

  /** Number of tablet servers, 0..240. */
  public MiniCluster.Builder numTabletServers(int n) {
    if (n < 0 || n > 240) {
      throw NyalaException.invalidArgument("number of tablet servers %d out of range 0..240", n);
    }
    this.numTabletServers = n;
    return self();
  }

  /** Where the servers keep their data; default: a new temporary directory. */
  public MiniCluster.Builder dataRoot(Path root) {
    this.dataRoot = root;
    return self();
  }

  /** Keep the data root when the cluster closes (always kept if given and not temp). */
  public MiniCluster.Builder keepData(boolean keep) {
    this.keepData = keep;
    return self();
  }

  /** A flag for every master, e.g. {@code "--tserver_unresponsive_timeout_ms=3000"}. */
  public MiniCluster.Builder masterFlag(String flag) {
    masterFlags.add(flag);
    return self();
  }

  /** A flag for every tablet server, e.g. {@code "--heartbeat_interval_ms=200"}. */
  public MiniCluster.Builder tserverFlag(String flag) {
    tserverFlags.add(flag);
    return self();
  }

  /**
   * A flag for one tablet server (0-based index), applied after those for every server; see
   * {@link MiniCluster#setTabletServerFlags} to change it between starts.
   */
  public MiniCluster.Builder tserverFlag(int index, String flag) {
    ownTserverFlags.computeIfAbsent(index, i -> new ArrayList<>()).add(flag);
    return self();
  }

  /**
   * Encryption at rest for every server: sets {@code --encrypt_data_at_rest} and a shared
   * {@code --encryption_key_file} under the data root ({@link MiniCluster#clusterKeyFile()}).
   */
  public MiniCluster.Builder encryption(boolean on) {
    this.encryption = on;
    return self();
  }

  /**
   * TLS and authentication on every server's RPC and Raft (default true): makes a CA and one
   * certificate per server (naming its loopback address) under the data root, as
   * {@code nyala cert} would, starts the servers with {@code --rpc_encryption=required} and
   * those files and with {@code --rpc_authentication=required} (admin RPCs only from holders of
   * a certificate of the CA, the minicluster's own admin calls present one named
   * {@code minicluster-harness}; client RPCs only with a user's token), makes a user with a
   * random password ({@link MiniCluster#credentials()}), and makes the cluster's clients trust
   * the CA and authenticate ({@link MiniCluster#clientBuilder()} for clients built by a test).
   * {@code tls(false)} keeps a plaintext cluster open to anyone, for the tests that need one.
   * See docs/architecture.md, "TLS on the wire" and "Who may call what".
   */
  public MiniCluster.Builder tls(boolean on) {
    this.tls = on;
    return self();
  }

  /**
   * Servers get their certificates from the cluster's CA (default false; docs/architecture.md,
   * "TLS and the internal CA"): every server starts with the CA certificate only; the masters
   * also get the minicluster's CA key ({@code --tls_ca_key_file}), import the CA and issue
   * their own certificates with it, and tablet servers ask the leader master for theirs. A
   * master restarted without the key ({@code setMasterFlags(i, "--tls_ca_key_file=")}) asks the
   * leader too. Needs {@link #tls} and {@link #encryption}: a request proves membership with the
   * cluster key.
   */
  public MiniCluster.Builder tserverCertificatesFromMaster(boolean on) {
    this.tserverCertificatesFromMaster = on;
    return self();
  }

  /**
   * Binds every server to 127.0.0.1 on its role's default ports plus 100 per server (masters
   * RPC 7051, 7151, 7251, Raft 7061, ..., web 8051, ...; tablet servers 7050, 7150, ..., 7060,
   * ..., 8050, ...) when all of them are free, as {@code nyala local-cluster} does, so the
   * addresses are easy to type. Otherwise (and by default, which tests should keep) each
   * server gets its own 127.a.b.c address on the default ports, which no other cluster
   * competes for ({@link MiniCluster#usesLocalhostPorts()} tells which). A data root keeps
   * the layout it was first started with.
   */
  public MiniCluster.Builder localhostPorts(boolean on) {
    this.localhostPorts = on;
    return self();
  }

  /**
   * Whether {@link MiniCluster#partition} may cut the network between servers (default true).
   * In {@link ProcessMode#EXTERNAL} mode it starts every server with the unsafe flags that serve
   * the fault injection service (docs/testing.md, "Network partitions"); {@code nyala
   * local-cluster} turns it off, so that it never starts a server with an unsafe flag.
   */
  public MiniCluster.Builder networkPartitions(boolean on) {
    this.networkPartitions = on;
    return self();
  }

  /** Run servers in this JVM (default) or each in its own process. */
  public MiniCluster.Builder processMode(ProcessMode m) {
    this.mode = m;
    return self();
  }

  /** A JVM option for server processes in {@link ProcessMode#EXTERNAL} mode. */
  public MiniCluster.Builder serverJvmOption(String option) {
    jvmOptions.add(option);
    return self();
  }

  /** How long {@link MiniCluster#start()} waits for tablet servers to register. */
  public MiniCluster.Builder readyTimeoutMs(long ms) {
    this.readyTimeoutMs = ms;
    return self();
  }

  /** The builder itself, which every setter returns so that calls chain. */
  abstract MiniCluster.Builder self();
}
