package io.nyala.common.server;

import io.grpc.BindableService;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.FirstElectionWindow;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.env.DiskFaults;
import io.nyala.common.env.Env;
import io.nyala.common.fault.FaultInjectionService;
import io.nyala.common.fault.NetworkFaults;
import io.nyala.common.fault.RpcPartitionFilter;
import io.nyala.common.fs.DirLock;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.metrics.ratis.RatisRegistries;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.row.Redactor;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.RpcServer;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.authz.CallerAuthentication;
import io.nyala.common.security.authz.RpcAuthentication;
import io.nyala.common.security.authz.RpcAuthorization;
import io.nyala.common.security.cert.CertificateRenewal;
import io.nyala.common.security.cert.CredentialFiles;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.tls.WireTls;
import io.nyala.common.security.token.TokenVerifier;
import io.nyala.common.web.WebServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What master and tserver share: the filesystem and uuid, metrics, the RPC, Raft and HTTP
 * listeners and their start and stop order. A subclass's {@code start()} calls the steps in the
 * order it needs; {@link #close()} undoes them in reverse.
 */
public abstract class ServerBase implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ServerBase.class);

  protected final String role;
  protected final ServerOptions options;
  protected final HostPort rpcBind;
  protected final HostPort raftBind;
  protected final HostPort webBind;
  protected final String name;
  /** Wall time of the start, shown to humans only. */
  protected final long startTimeMillis = System.currentTimeMillis();
  /** Monotonic time of the start: uptime must not jump with the wall clock. */
  private final long startNanos = System.nanoTime();
  protected final Channels channels = new Channels();
  /** Whom this server does not hear from: empty unless a test injects a partition. */
  protected final NetworkFaults networkFaults;
  /** TLS of listeners and channels but the web's; see {@link #useIssuedCredentials}. */
  protected WireTls wireTls;
  /** The web server's HTTPS context ({@code --webserver_tls}), or null for HTTP. */
  private javax.net.ssl.SSLContext webTls;
  /** Who may call what on the RPC listener (docs/architecture.md, "Who may call what"). */
  protected final RpcAuthentication rpcAuthentication;
  /** Checks clients' tokens; the role feeds it the leader master's public keys. */
  protected final TokenVerifier tokenVerifier = new TokenVerifier(System::currentTimeMillis);

  protected ServerFs fs;
  /** The cluster key source, or null when this server does not encrypt. */
  protected KeyProvider keyProvider;
  protected MetricRegistry metrics;
  protected RpcServer rpcServer;
  protected RaftServer raftServer;
  protected WebServer webServer;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  /** Held from the start until everything that writes the dirs has closed. */
  private DirLock dirLock;
  private volatile boolean closed;

  protected ServerBase(String role, ServerOptions options, int defaultRpcPort,
      int defaultRaftPort, int defaultWebPort) {
    options.checkUnsafeFlags();
    this.role = role;
    this.options = options;
    this.rpcBind = options.rpcBind(defaultRpcPort);
    this.raftBind = options.raftBind(defaultRaftPort, rpcBind);
    this.webBind = options.webBind(defaultWebPort, rpcBind);
    this.name = options.serverName.isEmpty()
        ? options.rpcAdvertised(rpcBind).toString() : options.serverName;
    this.networkFaults = new NetworkFaults(name);
    // Read and checked before anything starts: a bad TLS file refuses the start.
    this.wireTls = options.wireTls(role);
    if (wireTls.enabled()) {
      channels.useTls(wireTls.channelContext());
    }
    this.rpcAuthentication = options.rpcAuthentication(wireTls);
    this.webTls = wireTls.awaitsCertificate() ? null : options.webTls(wireTls);
    // Logged in plaintext too: an operator should see that callers are not authenticated.
    LOG.info("{}: RPC and Raft over {}; --rpc_authentication={}", name, wireTls,
        rpcAuthentication.flagValue());
    String wildcard = ServerOptions.wildcardWarning(name, rpcBind, raftBind, webBind);
    if (wildcard != null) {
      LOG.warn("{}", wildcard);
    }
  }

  /** Starts the server; returns once it serves RPCs, throws NyalaException if it cannot. */
  public abstract void start();

  /** Step 1: log context, redaction, directories, metrics. */
  protected void openFs() {
    LogContext.set(name);
    LogContext.installJulBridge();
    Redactor.configure(options.redact);
    if (options.encryptDataAtRest) {
      KeyMaterial.checkAesLength(options.encryptionKeyLength);
      keyProvider = FileKeyProvider.openOrCreate(options.encryptionKeyFile(),
          options.encryptionKeyLength);
    }
    // Before anything reads or formats the dirs: two servers must never share one.
    dirLock = DirLock.acquire(ServerFs.allDirs(options.walDir(), options.dataDirs()), role + " "
        + name);
    try {
      fs = ServerFs.openOrFormat(options.walDir(), options.dataDirs(), role, keyProvider,
          options.encryptionKeyLength);
    } catch (RuntimeException e) {
      // A start refused here may be retried in this JVM (tests, the minicluster): unlock now.
      dirLock.close();
      dirLock = null;
      throw e;
    }
    LogContext.registerAlias(fs.uuid(), name);
    fs.diskFaults().injectFlags(options.faultDiskErrors); // docs/data-safety.md, "Disk faults"
    metrics = ServerMetrics.create(name, startNanos, RaftIds.peerId(fs.uuid()).toString(),
        () -> wireTls, networkFaults);
    // Peers tell our calls from clients' by this, so an injected partition can drop them.
    channels.intercept(RpcPartitionFilter.callerIdentity(fs.uuid()));
  }

  /** Presents {@code issued} (from the cluster's CA) from now on; call before any listener. */
  protected void useIssuedCredentials(ServerCredentials issued) {
    wireTls = wireTls.withCredentials(issued);
    channels.useTls(wireTls.channelContext());
    webTls = options.webTls(wireTls);
  }

  /**
   * Presents this server's certificate for {@code hosts} from the leader master's CA, asked of
   * {@code masters} unless the stored one is good; returns what renews it while the server runs,
   * once started (docs/architecture.md, "TLS and the internal CA").
   */
  protected CertificateRenewal useRequestedCertificate(List<HostPort> masters,
      List<String> hosts) {
    CertificateRenewal renewal = CertificateRenewal.of(roleLabel() + " " + name, masters,
        keyProvider, wireTls.trustedCa(), new CredentialFiles(fs.env(), fs.walDir()), uuid(),
        hosts, this::isClosed);
    useIssuedCredentials(renewal.obtain(options.tlsCertificateRequestTimeoutMs));
    return renewal;
  }

  /** Builds (not starts) this server's RaftServer with the per-server properties. */
  protected RaftServer buildRaftServer(StateMachine.Registry registry, RaftGroup group,
      RaftStorage.StartupOption option) {
    RatisRegistries.checkLoaded();
    RaftProperties props = RaftSettings.forServer(fs.raftDir().toFile(), raftBind,
        options.raftElectionTimeoutMinMs, options.raftElectionTimeoutMaxMs,
        options.raftProperties);
    customizeRaft(props);
    // The user's raw properties win over role defaults.
    options.raftProperties.forEach(props::set);
    try {
      RaftServer.Builder b = RaftServer.newBuilder()
          .setServerId(RaftIds.peerId(fs.uuid()))
          .setProperties(props)
          .setStateMachineRegistry(registry)
          .setParameters(RaftListenerParameters.of(networkFaults, wireTls))
          .setOption(option);
      if (group != null) {
        b.setGroup(group);
      }
      raftServer = b.build();
    } catch (IOException e) {
      throw NyalaException.ioError(name + ": cannot create Raft server: " + e.getMessage(), e);
    }
    return raftServer;
  }

  /** Hook to adjust Raft properties for the role. */
  protected void customizeRaft(RaftProperties props) {}

  protected void startRaft() {
    try {
      raftServer.start();
      FirstElectionWindow.watchAll(raftServer);
    } catch (IOException e) {
      throw NyalaException.ioError(name + ": cannot start Raft server on " + raftBind + ": "
          + e.getMessage(), e);
    }
  }

  protected void startRpc(List<BindableService> services) {
    rpcServer = new RpcServer(name, rpcBind, options.rpcNumServiceThreads,
        options.rpcServiceQueueLength, options.rpcMaxMessageSize, metrics);
    rpcServer.checkCallers(new CallerAuthentication(rpcAuthentication, tokenVerifier),
        new RpcAuthorization(name, rpcAuthentication, metrics));
    for (BindableService s : services) {
      rpcServer.addService(s);
    }
    rpcServer.intercept(RpcPartitionFilter.inbound(networkFaults));
    if (wireTls.enabled()) {
      rpcServer.useTls(wireTls.serverContext());
    }
    if (options.faultEnableNetworkPartitions) {
      LOG.warn("UNSAFE test fault on: {} serves FaultInjectionService, through which anyone who "
          + "reaches its RPC port can cut it off from other servers", name);
      rpcServer.addService(new FaultInjectionService(networkFaults));
    }
    customizeRpc(rpcServer);
    rpcServer.start();
  }

  /** Hook: role-specific settings of the RPC server before it starts. */
  protected void customizeRpc(RpcServer rpc) { }

  /**
   * Starts the HTTP server with its home page; {@code pages} adds the role's other pages and
   * nav links before it listens.
   */
  protected void startWeb(Supplier<String> homePage, Consumer<WebServer> pages) {
    if (webBind == null) {
      return;
    }
    try {
      webServer = new WebServer(name, roleLabel(), webBind, metrics, homePage, webTls);
      pages.accept(webServer);
      webServer.start();
    } catch (IOException e) {
      throw NyalaException.ioError(name + ": cannot bind HTTP address " + webBind + ": "
          + e.getMessage(), e);
    }
  }

  /** The role as pages name it. */
  private String roleLabel() {
    return role.equals("tserver") ? "tablet server" : role;
  }

  /** Registers something to close (before the listeners) when the server stops. */
  protected void onClose(AutoCloseable c) {
    closeables.add(c);
  }

  /** The door for every sensitive file of this server (encrypting iff the server encrypts). */
  public Env env() {
    return fs.env();
  }

  /** Disk faults {@link #env()} injects (docs/data-safety.md, "Disk faults"); null early. */
  public DiskFaults diskFaults() {
    return fs == null ? null : fs.diskFaults();
  }

  /** The cluster key source, or null when this server does not encrypt. */
  public KeyProvider keyProvider() {
    return keyProvider;
  }

  public String name() {
    return name;
  }

  public String uuid() {
    return fs.uuid();
  }

  public MetricRegistry metrics() {
    return metrics;
  }

  /** Whom this server does not hear from (docs/testing.md, "Network partitions"). */
  public NetworkFaults networkFaults() {
    return networkFaults;
  }

  public HostPort rpcAddress() {
    return options.rpcAdvertised(rpcServer != null ? rpcServer.boundAddress() : rpcBind);
  }

  /**
   * Where clients reach this server's RPC, when {@code --rpc_advertised_addresses} names an
   * address other than {@link #rpcAddress()} (which peers use); null otherwise.
   */
  public HostPort clientRpcAddress() {
    return options.rpcClientAddress(rpcServer != null ? rpcServer.boundAddress() : rpcBind);
  }

  public HostPort raftAddress() {
    return new HostPort(ServerOptions.advertisableHost(raftBind.host()), raftBind.port());
  }

  /** The HTTP address, or null if the web server is off. */
  public HostPort httpAddress() {
    if (webServer == null) {
      return null;
    }
    return new HostPort(ServerOptions.advertisableHost(webBind.host()),
        webServer.address().getPort());
  }

  public ServerRegistrationPB registration() {
    ServerRegistrationPB.Builder b = ServerRegistrationPB.newBuilder()
        .setUuid(uuid())
        .setRpcAddress(rpcAddress().toPb())
        .setRaftAddress(raftAddress().toPb())
        .setName(name)
        .setStartTimeMillis(startTimeMillis)
        .setVersion(Version.VERSION);
    HostPort http = httpAddress();
    if (http != null) {
      b.setHttpAddress(http.toPb());
    }
    HostPort client = clientRpcAddress();
    if (client != null) {
      b.setClientRpcAddress(client.toPb());
    }
    return b.build();
  }

  public boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    LogContext.set(name);
    LOG.info("{} {} stopping", role, name);
    try {
      beforeStop();
    } catch (RuntimeException e) {
      LOG.warn("{} {}: the step before the stop failed; stopping anyway", role, name, e);
    }
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeQuietly(closeables.get(i));
    }
    closeQuietly(webServer);
    closeQuietly(rpcServer);
    closeQuietly(raftServer);
    closeQuietly(channels);
    try {
      closeStorage();
    } catch (RuntimeException e) {
      LOG.warn("error while closing the storage of {} {}", role, name, e);
    }
    closeQuietly(dirLock);
    if (fs != null) {
      LogContext.unregisterAlias(fs.uuid());
    }
    LOG.info("{} {} stopped", role, name);
  }

  /**
   * Hook: the role's last work while everything still serves (RPC, Raft, heartbeats), run once
   * at the start of {@link #close()}; it must bound its own time.
   */
  protected void beforeStop() {}

  /**
   * Hook: closes what writes the server's dirs and must outlive the listeners (Raft reads
   * blocks until it stops); runs before the dir lock is released.
   */
  protected void closeStorage() {}

  private static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("error while closing {}", c, e);
    }
  }
}
