package io.nyala.master;

import com.google.protobuf.ByteString;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftCalls;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.consensus.RaftSettings;
import io.nyala.common.log.LogContext;
import io.nyala.common.metrics.MetricRegistry;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.rpc.RpcServer;
import io.nyala.common.security.LogPayloads;
import io.nyala.common.security.cert.CertificateRenewal;
import io.nyala.common.security.cert.CertificateRequester;
import io.nyala.common.security.cert.CredentialFiles;
import io.nyala.common.security.pki.CertificateAuthority;
import io.nyala.common.server.ServerBase;
import io.nyala.master.authn.TokenIssuer;
import io.nyala.master.ca.CertificateIssuer;
import io.nyala.master.ca.MasterCertificate;
import io.nyala.master.ca.OperatorCa;
import io.nyala.master.catalog.CatalogCertAuthority;
import io.nyala.master.catalog.CatalogLeadershipState;
import io.nyala.master.catalog.CatalogManager;
import io.nyala.master.catalog.CatalogState;
import io.nyala.master.catalog.CatalogTokenKeys;
import io.nyala.master.catalog.SysCatalog;
import io.nyala.master.locations.TableLocationsCache;
import io.nyala.master.locations.TableLocationsLookup;
import io.nyala.master.placement.ReplicaPlacer;
import io.nyala.master.rereplication.ReReplicator;
import io.nyala.master.tsmanager.TSAdminClient;
import io.nyala.master.tsmanager.TSManager;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A master: the sys catalog on Ratis, the tserver registry, DDL and table locations behind the
 * {@code MasterService}. Start order: directories, RPC listener (its bound address goes into the
 * Raft peer as the client address), at the first start of several masters discovery of the
 * others (which needs every master's RPC listener up, so it blocks until they answer), Raft,
 * web, background ticker.
 */
public class MasterServer extends ServerBase {
  private static final Logger LOG = LoggerFactory.getLogger(MasterServer.class);
  public static final int DEFAULT_RPC_PORT = 7051;
  public static final int DEFAULT_RAFT_PORT = 7061;
  public static final int DEFAULT_WEB_PORT = 8051;
  /** How often leadership is checked and CREATING tablets are swept. */
  private static final long TICK_MS = 100;
  /** A background pass this long is logged with where its time went. */
  private static final long SLOW_TICK_MS = 2_000;
  private static final long ADMIN_RPC_DEADLINE_MS = 10_000;

  private final MasterOptions masterOptions;
  private final LongSupplier nanoClock;
  /** Created in {@link #start} once the filesystem (and so the env and keys) is open. */
  private SysCatalog sysCatalog;
  private TSManager tsManager;
  private CatalogManager catalogManager;
  private TableLocationsCache locations;
  private ReReplicator reReplicator;
  private ScheduledExecutorService ticker;
  /** Authenticate and the token signing keys (docs/architecture.md, "Who may call what"). */
  private TokenIssuer tokens;
  /** The token signing keys in the catalog. */
  private CatalogTokenKeys storedTokenKeys;
  /** Cluster key rotation (docs/encryption.md, "Rotating the cluster key"). */
  private ClusterKeyRotator keyRotator;
  /** The internal CA in the catalog. */
  private CatalogCertAuthority certAuthority;
  private final UnmatchedMastersWarning unmatchedMasters;

  public MasterServer(MasterOptions options) {
    this(options, System::nanoTime);
  }

  /** With an injectable clock for tserver liveness and creation retries (tests). */
  public MasterServer(MasterOptions options, LongSupplier nanoClock) {
    super("master", options, DEFAULT_RPC_PORT, DEFAULT_RAFT_PORT, DEFAULT_WEB_PORT);
    this.masterOptions = options;
    this.nanoClock = nanoClock;
    this.unmatchedMasters = new UnmatchedMastersWarning(nanoClock);
  }

  /** Returns once the RPC server is up; leadership of the catalog follows asynchronously. */
  public void start() {
    openFs();
    MasterOptions o = masterOptions;
    // Read once: a master with the CA's key issues its own certificate and imports the CA.
    CertificateAuthority operatorCa = OperatorCa.read(o.tlsCaKeyFile, o.trustedCaFile,
        Clock.systemUTC());
    CertificateRenewal renewal = wireTls.awaitsCertificate() // before any listener
        ? useOwnCertificate(operatorCa) : null;
    // Random keys per leader term, wrapped in each entry: never a key derived from the cluster
    // key, which two catalogs under one cluster key would share (docs/encryption.md).
    sysCatalog = new SysCatalog(fs.env(), LogPayloads.wrapped("sys-catalog", keyProvider,
        masterOptions.encryptionKeyLength));
    tsManager = new TSManager(nanoClock, o.tserverUnresponsiveTimeoutMs);
    TSAdminClient admin = new TSAdminClient(channels, ADMIN_RPC_DEADLINE_MS);
    admin.setClusterId(() -> sysCatalog.read(CatalogState::clusterId));
    ReplicaPlacer placer = new ReplicaPlacer(new SecureRandom(), o.maxCreateTabletsPerTs);
    catalogManager = new CatalogManager(sysCatalog, tsManager, admin, placer,
        new CatalogManager.Settings(o.defaultNumReplicas, o.tabletCreationRetryMs), nanoClock,
        keyProvider, o.encryptionKeyLength);
    locations = new TableLocationsCache(new TableLocationsLookup(sysCatalog,
        catalogManager.reports(), tsManager, o.maxTableLocations),
        sysCatalog.locationsVersions(), o.tableLocationsCacheCapacityMb, metrics);
    reReplicator = new ReReplicator(catalogManager, tsManager, admin, placer, nanoClock,
        o.rereplicationRetryMs, metrics);
    reReplicator.setChangeConfigTimeoutMs(o.rereplicationChangeConfigTimeoutMs);
    catalogManager.setJoiningReplicas(reReplicator::isJoining);
    catalogManager.onLeaderReady(() -> {
      locations.reset();
      reReplicator.reset();
    });
    // The signing keys go to the catalog wrapped by the cluster key; without one (no encryption
    // at rest) as they are (docs/architecture.md, "Client tokens").
    storedTokenKeys = new CatalogTokenKeys(sysCatalog, keyProvider);
    tokens = TokenIssuer.fromFlags(o.userCredentialsFile, o.authnTokenValidityMs,
        o.tokenSigningKeyRotationMs, System::currentTimeMillis, tokenVerifier,
        wireTls.enabled(), storedTokenKeys, this::readyLeaderTerm, metrics);
    HeartbeatHandler heartbeats = new HeartbeatHandler(uuid(), tsManager, catalogManager,
        o.heartbeatIntervalMs, locations::reset, this::httpAddress, tokens::publicKeys);
    keyRotator = new ClusterKeyRotator(uuid(), fs, keyProvider, catalogManager, tsManager,
        this::isLeader, this::snapshotCatalog);
    heartbeats.setClusterKeyVersion(keyRotator::targetVersion);
    // The service threads exist once startRpc made the RPC server, before any call arrives.
    Executor serviceThreads = task -> rpcServer.serviceThreads().execute(task);
    startRpc(List.of(new MasterService(this, catalogManager, tsManager, heartbeats, tokens,
        keyRotator, certificateIssuer(operatorCa), serviceThreads).withSerializedLocations()));

    RaftStorage.StartupOption option = SysCatalog.startupOption(fs.raftDir());
    buildRaftServer(sysCatalog.registry(), catalogGroup(option), option);
    sysCatalog.attach(raftServer);
    beforeRaftStart();
    startRaft();
    MasterPages pages = new MasterPages(this, sysCatalog, catalogManager, tsManager,
        options.webserverExposeTabletIds);
    startWeb(pages::render, pages::addTo);
    registerMetrics(metrics);
    MasterCertificate.startRenewal(renewal, name, metrics, wireTls, this::onClose);

    ticker = Executors.newSingleThreadScheduledExecutor(LogContext.threadFactory(name, "ticker"));
    onClose(ticker::shutdownNow);
    ticker.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
    sysCatalog.setLeaderListener(() -> ticker.execute(this::tick));
    LOG.info("master {} ({}) started: RPC {}, Raft {}, HTTP {}, catalog {}", name, uuid(),
        rpcAddress(), raftAddress(), httpAddress(), option);
  }

  /**
   * Test seam (fault injection): runs after discovery, just before the catalog's Raft server
   * starts listening. A test overrides it to start this master's Raft late, as a master whose
   * discovery or start lagged does (docs/testing.md, "Network partitions").
   */
  protected void beforeRaftStart() { }

  /**
   * The group to start the catalog with. One master: just itself, as always. Several: at first
   * start the peers found by asking {@code --master_addresses}; after that none, so that Ratis
   * recovers the configuration it persisted (which may since have changed).
   */
  private RaftGroup catalogGroup(RaftStorage.StartupOption option) {
    List<HostPort> masters = masterOptions.masters(DEFAULT_RPC_PORT);
    if (masters.size() <= 1) {
      return SysCatalog.initialGroup(
          List.of(SysCatalog.peer(uuid(), raftAddress(), rpcAddress())));
    }
    if (option == RaftStorage.StartupOption.RECOVER) {
      LOG.info("recovering the sys catalog group and its configuration from {}", fs.raftDir());
      return null;
    }
    return SysCatalog.initialGroup(new MasterDiscovery(uuid(), masters, channels, this::isClosed)
        .discover(masterOptions.masterDiscoveryTimeoutMs));
  }

  /**
   * The internal CA kept in the catalog (imported from {@code --tls_ca_key_file} if given) and
   * the issuer of servers' certificates (docs/architecture.md, "TLS and the internal CA").
   */
  private CertificateIssuer certificateIssuer(CertificateAuthority operatorCa) {
    MasterOptions o = masterOptions;
    certAuthority = new CatalogCertAuthority(sysCatalog, keyProvider, operatorCa,
        wireTls.speaksTls(), Clock.systemUTC());
    catalogManager.keepCertAuthority(certAuthority);
    return new CertificateIssuer(certAuthority::current, keyProvider, wireTls.trustedCa(),
        Duration.ofSeconds(o.serverCertificateValiditySec), metrics);
  }

  /**
   * This master's certificate from the cluster's CA (docs/architecture.md, "TLS and the internal
   * CA"): issued by itself given the CA's key, else asked of the leader among the other masters,
   * else (no other master) the stored one. Returns what renews it while the master runs (null
   * for the last).
   */
  private CertificateRenewal useOwnCertificate(CertificateAuthority operatorCa) {
    List<String> hosts = CertificateRequester.hosts(rpcAddress(), raftAddress(),
        clientRpcAddress());
    MasterCertificate own = new MasterCertificate("master " + name,
        new CredentialFiles(fs.env(), fs.walDir()), hosts, wireTls.trustedCa(), Clock.systemUTC());
    Duration validity = Duration.ofSeconds(masterOptions.serverCertificateValiditySec);
    if (operatorCa != null) {
      useIssuedCredentials(own.selfIssue(operatorCa, uuid(), validity));
      return own.selfRenewal(operatorCa, uuid(), validity, this::isClosed);
    }
    List<HostPort> others = MasterCertificate.others(masterOptions.masters(DEFAULT_RPC_PORT),
        rpcAddress(), clientRpcAddress(), rpcBind);
    if (others.isEmpty()) {
      useIssuedCredentials(own.storedAlone());
      return null;
    }
    try {
      return useRequestedCertificate(others, hosts);
    } catch (NyalaException e) {
      throw MasterCertificate.noLeader("master " + name, e);
    }
  }

  /** The internal CA in the catalog (for tests and tools). */
  public CatalogCertAuthority certAuthority() {
    return certAuthority;
  }

  private void tick() {
    long start = System.nanoTime();
    long[] laps = new long[3];
    try {
      catalogManager.tick();
      laps[0] = System.nanoTime();
      if (catalogManager.leadership().isReady()) {
        tokens.refresh();
        reReplicator.sweep();
      } else {
        tokens.followStored(storedTokenKeys.publicKeys());
      }
      laps[1] = System.nanoTime();
      keyRotator.tick();
      if (catalogManager.leadership().isReady()) {
        certAuthority.rewrapIfBehind(); // after a cluster key rotation
      }
      unmatchedMasters.check(sysCatalog.leaderTerm(), sysCatalog::followersWithNothingMatched);
      laps[2] = System.nanoTime();
    } catch (RuntimeException e) {
      // The ticker must survive a bad pass (e.g. Raft shutting down under it).
      LOG.warn("master background pass failed", e);
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    if (ms >= SLOW_TICK_MS) {
      // Leadership is followed on this thread too: a slow pass delays serving as the leader.
      LOG.warn("master background pass took {} ms (catalog and leadership {} ms, tokens and "
          + "re-replication {} ms, cluster key {} ms; 0 where the pass failed first)", ms,
          lap(start, laps[0]), lap(laps[0], laps[1]), lap(laps[1], laps[2]));
    }
  }

  private static long lap(long from, long to) {
    return to == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(to - from);
  }

  /**
   * GetTableLocations runs on the transport threads: a cache hit is answered there, the rest
   * handed to the service threads (docs/performance.md, "Locations over RPC").
   */
  @Override
  protected void customizeRpc(RpcServer rpc) {
    rpc.onTransportThreads(List.of(MasterServiceGrpc.getGetTableLocationsMethod()));
  }

  @Override
  protected void customizeRaft(RaftProperties props) {
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(props, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(props,
        masterOptions.catalogSnapshotThresholdEntries);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(props, true);
    // One group: a master that starts or comes back late must get the leader's entries at once.
    RaftSettings.retryUnreachableFollowersQuickly(props);
  }

  private void registerMetrics(MetricRegistry m) {
    m.gauge("tables", "Tables in the catalog",
        () -> sysCatalog.read(s -> s.tables().size()));
    m.gauge("tablets", "Tablets in the catalog",
        () -> sysCatalog.read(s -> s.tablets().size()));
    m.gauge("tservers_live", "Tablet servers heard from within the unresponsive timeout",
        () -> tsManager.live().size());
    m.gauge("tservers", "Registered tablet servers", () -> tsManager.all().size());
    m.gauge("catalog_unknown_tablet_replicas", "Reported replicas of tablets this catalog does "
        + "not know, left alone (docs/data-safety.md)",
        () -> catalogManager.unknownReplicas().size());
    m.gauge("is_leader", "1 if this master is the ready catalog leader",
        () -> isLeader() ? 1 : 0);
  }

  /** The term this master is the ready catalog leader of, or -1. */
  private long readyLeaderTerm() {
    long term = sysCatalog.leaderTerm();
    return term >= 0 && catalogManager.leadership().state().isReadyAt(term) ? term : -1;
  }

  /** Whether this master leads the catalog and has caught up, i.e. serves DDL. */
  public boolean isLeader() {
    return catalogManager != null && catalogManager.leadership().isReady();
  }

  /** Asks Ratis for a snapshot of the sys catalog now; returns its index. For tools and tests. */
  public long snapshotCatalog() {
    return RaftCalls.snapshotNow(raftServer, SysCatalog.GROUP_ID, 30_000);
  }

  /**
   * Hands leadership of the sys catalog to the master {@code newLeaderUuid}; waits until it has
   * taken over. Fails with NOT_LEADER unless this master leads. For tools and tests.
   */
  public void transferCatalogLeadership(String newLeaderUuid, long timeoutMs) {
    try {
      RaftCalls.transferLeadership(raftServer, SysCatalog.GROUP_ID,
          RaftIds.peerId(newLeaderUuid), timeoutMs).join();
    } catch (RuntimeException e) {
      throw NyalaException.from(e);
    }
  }

  /** The catalog, for tests and tools. */
  /** Re-replication of dead tablet servers' replicas (for tests and pages). */
  public ReReplicator reReplicator() {
    return reReplicator;
  }

  public CatalogManager catalog() {
    return catalogManager;
  }

  /**
   * GetTableLocations as the RPC answers it, parsed (for tests and tools): needs the ready
   * leader, goes through the cache.
   */
  public GetTableLocationsResponsePB getTableLocations(GetTableLocationsRequestPB req) {
    return TableLocationsCache.parse(tableLocations(req));
  }

  /**
   * GetTableLocations as the RPC serves it, serialized: needs the ready leader, goes through the
   * cache; may block (a miss reads the catalog).
   */
  public ByteString tableLocations(GetTableLocationsRequestPB req) {
    catalogManager.checkLeaderReady();
    return locations.get(req);
  }

  /**
   * The answer of {@link #tableLocations} if this master can give it without blocking (a cache
   * hit on the ready leader, or a refusal of a malformed request), else null. Null also until
   * this master first becomes the ready leader: asking Ratis whether it leads may wait for the
   * catalog's group to load until then.
   */
  public ByteString cachedTableLocations(GetTableLocationsRequestPB req) {
    if (!(catalogManager.leadership().state() instanceof CatalogLeadershipState.Ready)) {
      return null;
    }
    catalogManager.checkLeaderReady();
    return locations.getIfPresent(req);
  }

  /** The table locations cache, for tests, tools and benchmarks. */
  public TableLocationsCache locationsCache() {
    return locations;
  }

  public TSManager tsManager() {
    return tsManager;
  }

  @Override
  public void close() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
    super.close();
  }
}
