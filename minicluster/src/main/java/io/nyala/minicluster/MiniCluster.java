package io.nyala.minicluster;

import io.nyala.client.NyalaClient;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.fs.AtomicFiles;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.rpc.Channels;
import io.nyala.common.server.ServerBase;
import io.nyala.master.MasterServer;
import io.nyala.tserver.TabletServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
 * server and deletes the data root unless the builder said {@link Builder#keepData(boolean)}.
 */
public final class MiniCluster implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MiniCluster.class);

  private final Path dataRoot;
  private final boolean deleteRootOnClose;
  private final List<ServerNode> masters = new ArrayList<>();
  private final List<ServerNode> tservers = new ArrayList<>();
  private final long readyTimeoutMs;
  private final boolean localhost;
  private final List<NyalaClient> clients = new ArrayList<>();
  private boolean closed;

  private MiniCluster(Builder b) throws IOException {
    boolean tempRoot = b.dataRoot == null;
    this.dataRoot = tempRoot ? Files.createTempDirectory("nyala-minicluster-") : b.dataRoot;
    this.deleteRootOnClose = !b.keepData;
    this.readyTimeoutMs = b.readyTimeoutMs;
    Files.createDirectories(dataRoot);
    LoopbackAddresses.Plan plan = LoopbackAddresses.planFor(dataRoot,
        MasterServer.DEFAULT_RPC_PORT, b.localhostPorts,
        LoopbackAddresses.localhostPorts(b.numMasters, b.numTabletServers));
    this.localhost = plan.localhost();
    // Encryption flags go first so that flags given to the builder can still override them.
    List<String> masterFlags = new ArrayList<>(encryptionFlags(b.encryption));
    masterFlags.addAll(b.masterFlags);
    List<String> tserverFlags = new ArrayList<>(TSERVER_DEFAULTS);
    tserverFlags.addAll(encryptionFlags(b.encryption));
    tserverFlags.addAll(b.tserverFlags);
    List<String> masterAddrs = new ArrayList<>();
    for (int i = 0; i < b.numMasters; i++) {
      masterAddrs.add(plan.host(ServerRole.MASTER, i) + ":"
          + plan.port(MasterServer.DEFAULT_RPC_PORT, i));
    }
    for (int i = 0; i < b.numMasters; i++) {
      masters.add(new ServerNode(ServerRole.MASTER, i, dataRoot, plan.host(ServerRole.MASTER, i),
          plan.port(MasterServer.DEFAULT_RPC_PORT, i), plan.port(MasterServer.DEFAULT_RAFT_PORT, i),
          plan.port(MasterServer.DEFAULT_WEB_PORT, i), masterAddrs, masterFlags, b.mode,
          b.jvmOptions));
    }
    for (int i = 0; i < b.numTabletServers; i++) {
      tservers.add(new ServerNode(ServerRole.TABLET_SERVER, i, dataRoot,
          plan.host(ServerRole.TABLET_SERVER, i), plan.port(TabletServer.DEFAULT_RPC_PORT, i),
          plan.port(TabletServer.DEFAULT_RAFT_PORT, i), plan.port(TabletServer.DEFAULT_WEB_PORT, i),
          masterAddrs, tserverFlags, b.mode, b.jvmOptions));
      tservers.get(i).setOwnFlags(b.ownTserverFlags.getOrDefault(i, List.of()));
    }
  }

  /**
   * Tablet server flags a minicluster starts with, before the builder's own (which override
   * them): a block container grows by 1 MiB at a time instead of a server's 32 MiB, so a test
   * or local cluster with a few small tables takes megabytes of disk, not gigabytes
   * (docs/decisions.md, "Small preallocation in miniclusters").
   */
  static final List<String> TSERVER_DEFAULTS =
      List.of("--log_container_preallocate_bytes=" + (1 << 20));

  /**
   * Whether the servers listen on 127.0.0.1 on the default ports plus 100 per server (see
   * {@link Builder#localhostPorts}); false when each has its own 127.a.b.c address.
   */
  public boolean usesLocalhostPorts() {
    return localhost;
  }

  private List<String> encryptionFlags(boolean on) {
    if (!on) {
      return List.of();
    }
    return List.of("--encrypt_data_at_rest=true",
        "--encryption_key_file=" + clusterKeyFile());
  }

  /**
   * The cluster key file every server of an encrypting cluster shares (created by the first
   * server to start). It sits in the data root: convenient for tests, NOT secure.
   */
  public Path clusterKeyFile() {
    return dataRoot.resolve("cluster.key");
  }

  /** Starts configuring a cluster: 1 master and 3 tablet servers unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts every server that is not running (masters first, tablet servers in parallel) and
   * waits until every running tablet server has registered with the leader master.
   */
  public void start() {
    long t0 = System.nanoTime();
    startAll(masters);
    startAll(tservers);
    waitForTabletServers();
    LOG.info("minicluster with {} masters and {} tablet servers up in {} ms", masters.size(),
        tservers.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }

  private void startAll(List<ServerNode> nodes) {
    forAll(nodes, ServerNode::start);
  }

  /** Runs {@code action} on every node at once; the first failure is thrown. */
  private static void forAll(List<ServerNode> nodes, Consumer<ServerNode> action) {
    if (nodes.size() == 1) {
      action.accept(nodes.get(0));
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(nodes.size());
    try {
      List<CompletableFuture<Void>> fs = new ArrayList<>();
      for (ServerNode n : nodes) {
        fs.add(CompletableFuture.runAsync(() -> action.accept(n), pool));
      }
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
    } catch (java.util.concurrent.CompletionException e) {
      throw NyalaException.from(e);
    } finally {
      pool.shutdown();
    }
  }

  /** Waits until every running tablet server shows as live on the leader master. */
  public void waitForTabletServers() {
    long running = tservers.stream().filter(ServerNode::isRunning).count();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(readyTimeoutMs);
    try (Channels channels = new Channels()) {
      NyalaException last = null;
      while (System.nanoTime() < deadline) {
        for (ServerNode m : masters) {
          if (!m.isRunning()) {
            continue;
          }
          try {
            ListTabletServersResponsePB r = LeaderProbe.tabletServers(channels, m.rpcAddress());
            if (r != null) {
              long live = r.getServersList().stream().filter(e -> e.getLive()).count();
              if (live >= running) {
                return;
              }
            }
          } catch (RuntimeException e) {
            last = NyalaException.from(e);
          }
        }
        try {
          Thread.sleep(20); // polling a remote condition; no event to wait on
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw NyalaException.illegalState("interrupted waiting for tablet servers");
        }
      }
      throw NyalaException.timedOut("tablet servers did not register with the master within "
          + "%d ms%s", readyTimeoutMs, last == null ? "" : " (last error: " + last.getMessage() + ")");
    }
  }

  /**
   * Stops every server, the tablet servers first, each group at once (a dense tablet server
   * takes seconds to close its Raft groups); the data stays.
   */
  public void stop() {
    forAll(tservers, ServerNode::stop);
    forAll(masters, ServerNode::stop);
  }

  /** Stops and starts every server on the same directories and addresses. */
  public void restart() {
    stop();
    start();
  }

  /** The masters' RPC addresses, comma-separated: what clients and {@code --masters} take. */
  public String masterAddresses() {
    List<HostPort> hps = new ArrayList<>();
    for (ServerNode m : masters) {
      hps.add(m.rpcAddress());
    }
    return HostPort.toString(hps);
  }

  /** The masters' RPC addresses, in index order. */
  public List<HostPort> masterHostPorts() {
    return masters.stream().map(ServerNode::rpcAddress).toList();
  }

  /** A new client connected to this cluster; closed with the cluster if not before. */
  public synchronized NyalaClient newClient() {
    NyalaClient c = NyalaClient.builder(masterAddresses()).build();
    clients.add(c);
    return c;
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
    List<ServerInfo> out = new ArrayList<>();
    masters.forEach(n -> out.add(n.info()));
    tservers.forEach(n -> out.add(n.info()));
    return out;
  }

  /**
   * The index of the master that serves as leader right now (leads the catalog and has caught
   * up), or -1 if none does. Asks every running master; works in both process modes.
   */
  public int leaderMasterIndex() {
    try (Channels channels = new Channels()) {
      for (int i = 0; i < masters.size(); i++) {
        if (!masters.get(i).isRunning()) {
          continue;
        }
        try {
          if (LeaderProbe.tabletServers(channels, masters.get(i).rpcAddress()) != null) {
            return i;
          }
        } catch (RuntimeException e) {
          // unreachable (starting, or just killed): not the leader
        }
      }
    }
    return -1;
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

  /** Pids of the running server processes (EXTERNAL mode; empty in-process). */
  public List<Long> serverPids() {
    List<Long> out = new ArrayList<>();
    for (ServerNode n : masters) {
      if (n.pid() > 0) {
        out.add(n.pid());
      }
    }
    for (ServerNode n : tservers) {
      if (n.pid() > 0) {
        out.add(n.pid());
      }
    }
    return out;
  }

  /**
   * The pid of tablet server {@code index}'s process (EXTERNAL mode), or -1 when it is not
   * running or runs in this JVM: what a benchmark reads {@code /proc/<pid>/} of.
   */
  public long tabletServerPid(int index) {
    return tservers.get(index).pid();
  }

  /** The running master object, for in-process tests (null when stopped). */
  public MasterServer inProcessMaster(int index) {
    return (MasterServer) masters.get(index).server();
  }

  /** The running tablet server object, for in-process tests (null when stopped). */
  public TabletServer inProcessTabletServer(int index) {
    return (TabletServer) tservers.get(index).server();
  }

  /** The running server with this uuid, or null. */
  public ServerBase serverByUuid(String uuid) {
    for (ServerNode n : tservers) {
      ServerBase s = n.server();
      if (s != null && s.uuid().equals(uuid)) {
        return s;
      }
    }
    for (ServerNode n : masters) {
      ServerBase s = n.server();
      if (s != null && s.uuid().equals(uuid)) {
        return s;
      }
    }
    return null;
  }

  /** Index of the tablet server with this uuid, or -1. */
  public int tabletServerIndex(String uuid) {
    for (int i = 0; i < tservers.size(); i++) {
      if (tservers.get(i).info().uuid().equals(uuid)) {
        return i;
      }
    }
    return -1;
  }

  /** The directory holding every server's data. */
  public Path dataRoot() {
    return dataRoot;
  }

  /** Closes the clients it made, stops every server, and deletes the data unless kept. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (NyalaClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.warn("closing a client failed", e);
      }
    }
    stop();
    if (deleteRootOnClose) {
      AtomicFiles.deleteTree(dataRoot);
    }
  }

  /** Configures a {@link MiniCluster}. */
  public static final class Builder {
    private int numMasters = 1;
    private int numTabletServers = 3;
    private Path dataRoot;
    private boolean keepData;
    private long readyTimeoutMs = 60_000;
    private ProcessMode mode = ProcessMode.IN_PROCESS;
    private boolean encryption;
    private boolean localhostPorts;
    private final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx512m", "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1"));
    private final List<String> masterFlags = new ArrayList<>();
    private final List<String> tserverFlags = new ArrayList<>();
    private final Map<Integer, List<String>> ownTserverFlags = new HashMap<>();

    private Builder() {}

    /**
     * Number of masters (default 1). With several, every master gets all their addresses in
     * {@code --master_addresses} and they form the sys catalog's Raft group at first start;
     * tablet servers and clients get every address too. Use 3 to survive losing one.
     */
    public Builder numMasters(int n) {
      if (n < 1) {
        throw NyalaException.invalidArgument("a cluster needs at least 1 master, got %d", n);
      }
      this.numMasters = n;
      return this;
    }

    /** Number of tablet servers, 0..240. */
    public Builder numTabletServers(int n) {
      if (n < 0 || n > 240) {
        throw NyalaException.invalidArgument("number of tablet servers %d out of range 0..240", n);
      }
      this.numTabletServers = n;
      return this;
    }

    /** Where the servers keep their data; default: a new temporary directory. */
    public Builder dataRoot(Path root) {
      this.dataRoot = root;
      return this;
    }

    /** Keep the data root when the cluster closes (always kept if given and not temp). */
    public Builder keepData(boolean keep) {
      this.keepData = keep;
      return this;
    }

    /** A flag for every master, e.g. {@code "--tserver_unresponsive_timeout_ms=3000"}. */
    public Builder masterFlag(String flag) {
      masterFlags.add(flag);
      return this;
    }

    /** A flag for every tablet server, e.g. {@code "--heartbeat_interval_ms=200"}. */
    public Builder tserverFlag(String flag) {
      tserverFlags.add(flag);
      return this;
    }

    /**
     * A flag for one tablet server (0-based index), applied after those for every server; see
     * {@link MiniCluster#setTabletServerFlags} to change it between starts.
     */
    public Builder tserverFlag(int index, String flag) {
      ownTserverFlags.computeIfAbsent(index, i -> new ArrayList<>()).add(flag);
      return this;
    }

    /**
     * Encryption at rest for every server: sets {@code --encrypt_data_at_rest} and a shared
     * {@code --encryption_key_file} under the data root ({@link MiniCluster#clusterKeyFile()}).
     */
    public Builder encryption(boolean on) {
      this.encryption = on;
      return this;
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
    public Builder localhostPorts(boolean on) {
      this.localhostPorts = on;
      return this;
    }

    /** Run servers in this JVM (default) or each in its own process. */
    public Builder processMode(ProcessMode m) {
      this.mode = m;
      return this;
    }

    /** A JVM option for server processes in {@link ProcessMode#EXTERNAL} mode. */
    public Builder serverJvmOption(String option) {
      jvmOptions.add(option);
      return this;
    }

    /** How long {@link MiniCluster#start()} waits for tablet servers to register. */
    public Builder readyTimeoutMs(long ms) {
      this.readyTimeoutMs = ms;
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
      try {
        c.start();
      } catch (RuntimeException e) {
        c.close();
        throw e;
      }
      return c;
    }
  }
}
