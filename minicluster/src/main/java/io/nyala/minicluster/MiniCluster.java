package io.nyala.minicluster;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.server.ServerBase;
import io.nyala.master.MasterServer;
import io.nyala.minicluster.evidence.DataRootDisposal;
import io.nyala.tserver.TabletServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Nyala cluster in one JVM, for local use and integration tests: masters and tablet
 * servers on their own loopback addresses with real Raft, real gRPC and real files.
 *
 * <pre>{@code
 * try (MiniCluster cluster = MiniCluster.builder().numTabletServers(3).build();
 *      NyalaClient client = cluster.newClient()) {
 *   ...
 * }
 * }</pre>
 *
 * <p>Servers keep their addresses and directories across restarts. {@link #close()} stops every
 * server, checks that none left a thread, process or listening port behind, and deletes the
 * data root unless the builder said {@link Builder#keepData(boolean)}; in a test run under
 * {@link io.nyala.minicluster.evidence.KeepClusterOnFailure} the deletion waits for the test's
 * end and does not happen if it failed (docs/architecture.md, "Testing with the minicluster").
 */
public final class MiniCluster extends ClusterClientAccess implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MiniCluster.class);

  private final Path dataRoot;
  private final boolean deleteRootOnClose;
  private final ServerGroup masters;
  private final ServerGroup tservers;
  private final long readyTimeoutMs;
  private final boolean localhost;
  private final ClusterTls tls;
  private final ClusterClients clients;
  private final LeakCheck leakCheck;
  private final NetworkPartitions partitions;
  private boolean closed;

  private MiniCluster(Builder b) throws IOException {
    boolean tempRoot = b.dataRoot == null;
    this.dataRoot = tempRoot ? Files.createTempDirectory("nyala-minicluster-") : b.dataRoot;
    this.deleteRootOnClose = !b.keepData;
    this.readyTimeoutMs = b.readyTimeoutMs;
    Files.createDirectories(dataRoot);
    if (b.tserverCertificatesFromMaster && !(b.tls && b.encryption)) {
      throw NyalaException.invalidArgument("tserverCertificatesFromMaster needs tls(true) and "
          + "encryption(true): a certificate request proves membership with the cluster key");
    }
    this.tls = ClusterTls.create(dataRoot, b.tls, b.tserverCertificatesFromMaster);
    this.clients = new ClusterClients(this::masterAddresses, tls, dataRoot);
    ClusterLayout layout = ClusterLayout.plan(dataRoot, b, tls);
    this.localhost = layout.localhost();
    this.masters = layout.masters();
    this.tservers = layout.tservers();
    List<ServerNode> nodes = layout.nodes();
    this.leakCheck = LeakCheck.register(dataRoot, nodes);
    this.partitions = new NetworkPartitions(b.networkPartitions, nodes, s ->
        (s.role() == ServerRole.MASTER ? masters : tservers).get(s.index()));
  }

  /**
   * Whether the servers listen on 127.0.0.1 on the default ports plus 100 per server
   * ({@link Builder#localhostPorts}); false when each has its own 127.a.b.c address.
   */
  public boolean usesLocalhostPorts() {
    return localhost;
  }

  /**
   * The cluster key file every server of an encrypting cluster shares (created by the first
   * server to start). It sits in the data root: convenient for tests, NOT secure.
   */
  public Path clusterKeyFile() {
    return ClusterLayout.clusterKeyFile(dataRoot);
  }

  /** Starts configuring a cluster: 1 master and 3 tablet servers unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts every server that is not running (in-process: masters first, then the tablet
   * servers in parallel; as processes: all at once) and waits until every running tablet server
   * has registered with the leader master.
   */
  public void start() {
    long t0 = System.nanoTime();
    ServerGroup.startCluster(masters, tservers);
    waitForTabletServers();
    LOG.info("minicluster with {} masters and {} tablet servers up in {} ms", masters.size(),
        tservers.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  /** Waits until every running tablet server shows as live on the leader master. */
  public void waitForTabletServers() {
    LeaderProbe.awaitLiveTabletServers(masters, tls, tservers.runningCount(), readyTimeoutMs);
  }

  /**
   * Stops every server, the tablet servers first, each group at once (a dense tablet server
   * takes seconds to close its Raft groups); the data stays.
   */
  public void stop() {
    try {
      tservers.stopAll();
    } finally {
      // Masters left running would outlive the cluster: stop them even if a tablet server failed.
      masters.stopAll();
    }
  }

  /** Stops and starts every server on the same directories and addresses. */
  public void restart() {
    stop();
    start();
  }

  /** The masters' RPC addresses, comma-separated: what clients and {@code --masters} take. */
  public String masterAddresses() {
    return HostPort.toString(masters.rpcAddresses());
  }

  @Override
  ClusterClients clients() {
    return clients;
  }

  @Override
  ClusterTls tls() {
    return tls;
  }

  /** The masters' RPC addresses, in index order. */
  public List<HostPort> masterHostPorts() {
    return masters.rpcAddresses();
  }

  /** How many masters the cluster has (running or not). */
  public int numMasters() {
    return masters.size();
  }

  /** How many tablet servers the cluster has (running or not). */
  public int numTabletServers() {
    return tservers.size();
  }

  /** The master at {@code index} (0-based): name, addresses, uuid, running. */
  public ServerInfo master(int index) {
    return masters.get(index).info();
  }

  /** The tablet server at {@code index} (0-based): name, addresses, uuid, running. */
  public ServerInfo tabletServer(int index) {
    return tservers.get(index).info();
  }

  /** Every server, masters first. */
  public List<ServerInfo> servers() {
    return Stream.concat(masters.infos().stream(), tservers.infos().stream()).toList();
  }

  /**
   * The cluster's tablets for tests: leaders and replicas, faults aimed at a tablet's leader or
   * follower, waiting for voters, leadership transfer (see {@link ClusterTablets}).
   */
  public ClusterTablets tablets() {
    return new ClusterTablets(this);
  }

  /**
   * The index of the master that serves as leader right now (leads the catalog and has caught
   * up), or -1 if none does. Asks every running master; works in both process modes.
   */
  public int leaderMasterIndex() {
    return LeaderProbe.leaderIndex(masters, tls);
  }

  /** Stops a master gracefully; its data and addresses stay for a later start. */
  public void stopMaster(int index) {
    masters.get(index).stop();
  }

  /** Starts a stopped master on its old directories and addresses. */
  public void startMaster(int index) {
    masters.get(index).start();
  }

  /** Stops and starts a master. */
  public void restartMaster(int index) {
    stopMaster(index);
    startMaster(index);
  }

  /** Stops a tablet server gracefully; its data and addresses stay for a later start. */
  public void stopTabletServer(int index) {
    tservers.get(index).stop();
  }

  /** Starts a stopped tablet server on its old directories and addresses. */
  public void startTabletServer(int index) {
    tservers.get(index).start();
  }

  /** Stops and starts a tablet server. */
  public void restartTabletServer(int index) {
    stopTabletServer(index);
    startTabletServer(index);
  }

  /**
   * Replaces the flags of one tablet server for its later starts (applied after the builder's
   * {@code tserverFlag}s, so they win); no flags clears them. E.g. restart one server with a
   * {@code --fault_crash_points} flag, and again without it.
   */
  public void setTabletServerFlags(int index, String... flags) {
    tservers.get(index).setOwnFlags(List.of(flags));
  }

  /** Replaces the flags of one master for its later starts, as {@link #setTabletServerFlags}. */
  public void setMasterFlags(int index, String... flags) {
    masters.get(index).setOwnFlags(List.of(flags));
  }

  /**
   * The exit status of a tablet server process that ended by itself (EXTERNAL mode), e.g.
   * {@code CrashPoints.EXIT_CODE}; empty while it runs, after a stop or kill, and in-process.
   */
  public OptionalInt tabletServerExitStatus(int index) {
    return tservers.get(index).exitStatus();
  }

  /** SIGKILLs a tablet server (EXTERNAL mode; NOT_SUPPORTED in-process). */
  public void killTabletServer(int index) {
    tservers.get(index).kill();
  }

  /** SIGSTOPs a tablet server (EXTERNAL mode; NOT_SUPPORTED in-process). */
  public void pauseTabletServer(int index) {
    tservers.get(index).pause();
  }

  /** SIGCONTs a paused tablet server. */
  public void resumeTabletServer(int index) {
    tservers.get(index).resume();
  }

  /** SIGKILLs a master (EXTERNAL mode; NOT_SUPPORTED in-process). */
  public void killMaster(int index) {
    masters.get(index).kill();
  }

  /** SIGSTOPs a master (EXTERNAL mode; NOT_SUPPORTED in-process). */
  public void pauseMaster(int index) {
    masters.get(index).pause();
  }

  /** SIGCONTs a paused master. */
  public void resumeMaster(int index) {
    masters.get(index).resume();
  }

  /**
   * Cuts the network between two sets of servers, both Nyala's RPC and Raft, in either process
   * mode, until the returned partition is healed (docs/testing.md, "Network partitions").
   *
   * @throws NyalaException INVALID_ARGUMENT for an empty side, a server on both sides or one
   *     that never started; ILLEGAL_STATE if built with {@code networkPartitions(false)}
   */
  public NetworkPartition partition(Collection<ServerInfo> side,
      Collection<ServerInfo> otherSide) {
    return partitions.partition(side, otherSide);
  }

  /** Heals every partition made by {@link #partition}. */
  public void healAllPartitions() {
    partitions.healAll();
  }

  /** Pids of the running server processes (EXTERNAL mode; empty in-process). */
  public List<Long> serverPids() {
    return Stream.concat(masters.pids().stream(), tservers.pids().stream()).toList();
  }

  /**
   * The pid of tablet server {@code index}'s process (EXTERNAL mode), or -1 when it is not
   * running or runs in this JVM: what a benchmark reads {@code /proc/<pid>/} of.
   */
  public long tabletServerPid(int index) {
    return tservers.get(index).pid();
  }

  /**
   * The master object running in this JVM, for in-process tests: null when it is stopped, and
   * always in {@link ProcessMode#EXTERNAL} mode, where it runs in its own process.
   */
  public MasterServer inProcessMaster(int index) {
    return (MasterServer) masters.get(index).server();
  }

  /**
   * The tablet server object running in this JVM, for in-process tests: null when it is
   * stopped, and always in {@link ProcessMode#EXTERNAL} mode.
   */
  public TabletServer inProcessTabletServer(int index) {
    return (TabletServer) tservers.get(index).server();
  }

  /**
   * The server object with this uuid running in this JVM (tablet servers searched first), or
   * null: none runs with it, or the cluster is in {@link ProcessMode#EXTERNAL} mode.
   */
  public ServerBase inProcessServerByUuid(String uuid) {
    ServerBase s = tservers.inProcessServerByUuid(uuid);
    return s != null ? s : masters.inProcessServerByUuid(uuid);
  }

  /** Index of the tablet server with this uuid, or -1. */
  public int tabletServerIndex(String uuid) {
    return tservers.indexOf(uuid);
  }

  /** The directory holding every server's data. */
  public Path dataRoot() {
    return dataRoot;
  }

  /**
   * Closes the clients it made, stops every server, and deletes the data unless kept (at the
   * test's end, and not if it failed, under
   * {@link io.nyala.minicluster.evidence.KeepClusterOnFailure}).
   *
   * @throws NyalaException ILLEGAL_STATE if a server thread, process or listening port of the
   *     cluster is still there after a short grace period, naming each
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    clients.closeAll();
    FirstFailure failure = new FirstFailure();
    failure.run(this::healAllPartitions);
    failure.run(this::stop);
    failure.run(leakCheck::verify);
    if (deleteRootOnClose) {
      DataRootDisposal.closed(dataRoot);
    }
    failure.rethrow();
  }

  /**
   * Configures a {@link MiniCluster}: the setters (numbers of servers, data root, flags, process
   * mode, ...) are inherited from {@link ClusterSettings}, where each is documented.
   */
  public static final class Builder extends ClusterSettings {
    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** Creates the cluster and starts it. */
    public MiniCluster build() {
      MiniCluster c;
      try {
        c = new MiniCluster(this);
      } catch (IOException e) {
        throw NyalaException.ioError("cannot create the minicluster's data root: "
            + e.getMessage(), e);
      }
      FirstFailure failure = new FirstFailure();
      failure.run(c::start);
      if (failure.failed()) {
        failure.run(c::close);
        failure.rethrow();
      }
      return c;
    }
  }
}
