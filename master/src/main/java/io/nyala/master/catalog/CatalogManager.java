package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableResponsePB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.master.GetTableSchemaResponsePB;
import io.nyala.common.proto.master.IsAlterTableDoneResponsePB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletReportPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import io.nyala.common.schema.Schema;
import io.nyala.common.security.KeyProvider;
import io.nyala.master.placement.ReplicaPlacer;
import io.nyala.master.tsmanager.TSAdminClient;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiPredicate;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tables and tablets: DDL, the tablets' lifecycle on the tservers, and what tservers report.
 * Serves only while this master leads the catalog ({@link CatalogLeadership}). Validation runs
 * before the DDL lock; the checks that depend on the catalog (name taken, live tservers) run
 * under it, right before the one batch that makes the change.
 */
public final class CatalogManager {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogManager.class);

  /** What the catalog needs from the master's flags. */
  public record Settings(int defaultNumReplicas, long tabletCreationRetryMs) {}

  private final SysCatalog catalog;
  private final TSManager tsManager;
  private final TSAdminClient admin;
  private final Settings settings;
  private final ReplicaReports reports;
  private final TabletCreator creator;
  private final CatalogLeadership leadership;
  private final TabletReportProcessor reportProcessor;
  private final SchemaPropagator schemas;
  private final NewTableEntries newTables;
  private final RangeChanges ranges;
  /**
   * Serializes DDL so a check (name free, table present) and the write it guards cannot
   * interleave with another DDL; held across the catalog write.
   */
  private final ReentrantLock ddlLock = new ReentrantLock();
  private volatile Runnable leaderReadyHook = () -> { };

  /**
   * {@code keys} (null: no encryption) wraps a fresh {@code keyBits} data key for each new
   * tablet; the catalog keeps it wrapped and tablet creation hands it to the replicas.
   */
  public CatalogManager(SysCatalog catalog, TSManager tsManager, TSAdminClient admin,
      ReplicaPlacer placer, Settings settings, LongSupplier nanoClock, KeyProvider keys,
      int keyBits) {
    this.catalog = catalog;
    this.tsManager = tsManager;
    this.admin = admin;
    this.settings = settings;
    this.newTables = new NewTableEntries(catalog, tsManager, placer, keys, keyBits);
    this.reports = new ReplicaReports(catalog::bumpLocationsOfTablet);
    this.creator = new TabletCreator(catalog, reports, admin, nanoClock,
        settings.tabletCreationRetryMs());
    this.reportProcessor = new TabletReportProcessor(catalog, reports, creator, admin,
        tsManager);
    catalog.setTabletListener(reportProcessor::tabletChanged);
    this.leadership = new CatalogLeadership(catalog, () -> {
      reports.clear();
      reportProcessor.clear();
      tsManager.onBecomeLeader();
      leaderReadyHook.run();
    });
    this.ranges = new RangeChanges(catalog, newTables, creator, reports, reportProcessor);
    this.schemas = new SchemaPropagator(catalog, reports, admin, nanoClock,
        settings.tabletCreationRetryMs(), tsManager::isLive);
  }

  /**
   * Runs {@code hook} each time this master becomes the ready leader, after the reports are
   * cleared and before it serves (e.g. to reset the table locations cache).
   */
  public void onLeaderReady(Runnable hook) {
    this.leaderReadyHook = hook;
  }

  /** Has each new leader's barrier entry store the CA if missing (see CatalogCertAuthority). */
  public void keepCertAuthority(CatalogCertAuthority ca) {
    leadership.setBarrierOps(ca::barrierOps);
  }

  /** The CreateTablet request for a replica of {@code tablet} (re-replication adds joining). */
  public static CreateTabletRequestPB createTabletRequest(SysTableEntryPB table,
      SysTabletEntryPB tablet) {
    return TabletCreator.request(table, tablet);
  }

  /**
   * Tells the report processor which replicas are joining a tablet (not yet in the catalog), so
   * their reports do not get them deleted as strays.
   */
  public void setJoiningReplicas(BiPredicate<String, String> joining) {
    reportProcessor.setJoining(joining);
  }

  public SysCatalog catalog() {
    return catalog;
  }

  /**
   * How many reported replicas name a tablet this catalog does not know (left alone, see
   * docs/data-safety.md), and which: "tablet id on tserver uuid".
   */
  public List<String> unknownReplicas() {
    return reportProcessor.unknownReplicas().stream()
        .map(u -> u.tabletId() + " on " + u.tsUuid()).sorted().toList();
  }

  public ReplicaReports reports() {
    return reports;
  }

  public CatalogLeadership leadership() {
    return leadership;
  }

  /**
   * Periodic work on the master's background thread: leadership, tablet creation, schema
   * propagation, and a second look at the replicas of tablets whose catalog entry changed.
   */
  public void tick() {
    if (leadership.poll()) {
      creator.sweep();
      schemas.sweep();
      reportProcessor.recheck();
    }
  }

  /** Throws NOT_LEADER (with a hint) or SERVICE_UNAVAILABLE unless this master may serve. */
  public void checkLeaderReady() {
    leadership.check();
  }

  public String createTable(CreateTableRequestPB req) {
    checkLeaderReady();
    String name = req.getName();
    if (name.isBlank()) {
      throw NyalaException.invalidArgument("table name must not be empty");
    }
    Schema schema = validSchema(name, req.getSchema());
    PartitionSchema ps = validPartitionSchema(name, req, schema);
    int rf = req.getNumReplicas() == 0 ? settings.defaultNumReplicas() : req.getNumReplicas();
    List<PartitionPB> partitions = ps.createPartitions();
    ddlLock.lock();
    try {
      SysTableEntryPB existing = catalog.read(s -> s.tableByName(name));
      if (existing != null) {
        if (DdlRetries.isRetryOf(req.getRequestId(), existing.getCreateRequestId())) {
          // A retry of this very create, whose answer was lost: it succeeded.
          LOG.info("create of table '{}' retried (request {}): answered with the table it made",
              name, req.getRequestId());
          return existing.getTableId();
        }
        throw NyalaException.alreadyPresent("table '%s' already exists", name);
      }
      NewTableEntries.Entries entries = newTables.build(name, req, ps, rf, partitions);
      SysTableEntryPB table = entries.table();
      List<SysTabletEntryPB> tablets = entries.tablets();
      catalog.writeSync(entries.batch());
      LOG.info("created table '{}' ({}) with {} tablets x {} replicas", name,
          table.getTableId(), tablets.size(), rf);
      creator.sendAll(table, tablets);
      return table.getTableId();
    } finally {
      ddlLock.unlock();
    }
  }

  private static Schema validSchema(String table, SchemaPB pb) {
    try {
      return Schema.forTable(Schema.fromPb(pb).columns());
    } catch (RuntimeException e) {
      throw NyalaException.invalidArgument("table '%s': %s", table,
          NyalaException.from(e).detail());
    }
  }

  private static PartitionSchema validPartitionSchema(String table, CreateTableRequestPB req,
      Schema schema) {
    try {
      PartitionSchema ps = PartitionSchema.fromPb(req.getPartitionSchema(), schema);
      if (!ps.rangeSchema().isEmpty() && ps.ranges().isEmpty()) {
        throw NyalaException.invalidArgument("range partitioning on %s needs at least one range",
            ps.rangeSchema().columns());
      }
      return ps;
    } catch (RuntimeException e) {
      throw NyalaException.invalidArgument("table '%s': %s", table,
          NyalaException.from(e).detail());
    }
  }

  /** Replicas per tserver uuid, as the catalog assigns them. */
  public Map<String, Integer> replicaCounts() {
    return newTables.replicaCounts();
  }

  public boolean isCreateTableDone(TableIdentifierPB ident) {
    checkLeaderReady();
    List<SysTabletEntryPB> tablets = catalog.read(s -> s.tabletsOf(findTable(s, ident)
        .getTableId()));
    return isDone(tablets);
  }

  private boolean isDone(List<SysTabletEntryPB> tablets) {
    return tablets.stream().allMatch(t -> t.getState() == SysTabletStatePB.SYS_TABLET_RUNNING
        || reports.leader(t.getTabletId()) != null || reports.isHibernated(t.getTabletId()));
  }

  public void deleteTable(TableIdentifierPB ident) {
    deleteTable(ident, "");
  }

  /** Deletes a table; {@code requestId}: see {@link DdlRetries}. */
  public void deleteTable(TableIdentifierPB ident, String requestId) {
    checkLeaderReady();
    SysTableEntryPB table;
    List<SysTabletEntryPB> tablets;
    ddlLock.lock();
    try {
      SysTableEntryPB deleted = catalog.read(s -> DdlRetries.deleted(s, requestId));
      if (deleted != null) {
        LOG.info("delete of table '{}' retried (request {}): it is gone", deleted.getName(),
            requestId);
        return;
      }
      table = catalog.read(s -> findTable(s, ident));
      tablets = catalog.read(s -> s.tabletsOf(table.getTableId()));
      SysCatalogBatchPB.Builder batch = SysCatalogBatchPB.newBuilder();
      tablets.forEach(t -> batch.addOps(
          SysCatalogOpPB.newBuilder().setDeleteTabletId(t.getTabletId())));
      if (!requestId.isEmpty()) {
        // Kept on the tombstone, which the delete below makes from this entry.
        batch.addOps(SysCatalogOpPB.newBuilder().setPutTable(
            table.toBuilder().setDeleteRequestId(requestId)));
      }
      batch.addOps(SysCatalogOpPB.newBuilder().setDeleteTableId(table.getTableId()));
      catalog.writeSync(batch.build());
    } finally {
      ddlLock.unlock();
    }
    LOG.info("deleted table '{}' ({})", table.getName(), table.getTableId());
    String reason = "table '" + table.getName() + "' was deleted";
    for (SysTabletEntryPB t : tablets) {
      reports.forget(t.getTabletId());
      for (RaftPeerPB r : t.getReplicasList()) {
        reportProcessor.sendDelete(r.getUuid(), HostPort.fromPb(r.getRpcAddress()),
            DeleteTabletRequestPB.newBuilder().setTabletId(t.getTabletId()).setReason(reason)
                .setTabletDropped(true).build());
      }
    }
  }

  /**
   * Renames the table and/or adds, drops and renames columns in one new schema version, written
   * to the catalog; the tablets follow in the background ({@link #isAlterTableDone}). Or adds and
   * drops range partitions ({@link RangeChanges}), keeping the schema version.
   */
  public AlterTableResponsePB alterTable(AlterTableRequestPB req) {
    checkLeaderReady();
    SysTableEntryPB altered;
    List<SysTabletEntryPB> tablets;
    ddlLock.lock();
    try {
      SysTableEntryPB done = catalog.read(s -> DdlRetries.altered(s, req.getRequestId()));
      if (done != null) {
        LOG.info("alter of table '{}' retried (request {}): already applied", done.getName(),
            req.getRequestId());
        return AlterTableResponsePB.newBuilder().setTableId(done.getTableId())
            .setSchemaVersion(done.getSchema().getVersion()).build();
      }
      SysTableEntryPB table = catalog.read(s -> findTable(s, req.getTable()));
      if (RangeAlteration.changesRanges(req)) {
        return ranges.apply(table, req);
      }
      altered = TableAlteration.apply(table, req).toBuilder()
          .setLastAlterRequestId(req.getRequestId()).build();
      String newName = altered.getName();
      if (!newName.equals(table.getName())
          && catalog.read(s -> s.tableByName(newName)) != null) {
        throw NyalaException.alreadyPresent("cannot rename table '%s' to '%s': a table with "
            + "that name exists", table.getName(), newName);
      }
      catalog.writeSync(SysCatalogBatchPB.newBuilder()
          .addOps(SysCatalogOpPB.newBuilder().setPutTable(altered)).build());
      tablets = catalog.read(s -> s.tabletsOf(table.getTableId()));
      LOG.info("altered table '{}' ({}): now '{}' at schema version {}", table.getName(),
          table.getTableId(), newName, altered.getSchema().getVersion());
    } finally {
      ddlLock.unlock();
    }
    schemas.sendAll(altered, tablets);
    return AlterTableResponsePB.newBuilder().setTableId(altered.getTableId())
        .setSchemaVersion(altered.getSchema().getVersion()).build();
  }

  /** Done once every tablet's leader has reported the table's current schema version. */
  public IsAlterTableDoneResponsePB isAlterTableDone(TableIdentifierPB ident) {
    checkLeaderReady();
    SysTableEntryPB table = catalog.read(s -> findTable(s, ident));
    int version = table.getSchema().getVersion();
    boolean done = catalog.read(s -> s.tabletsOf(table.getTableId())).stream()
        .allMatch(t -> schemas.isCurrent(t, version));
    return IsAlterTableDoneResponsePB.newBuilder().setDone(done).setSchemaVersion(version)
        .build();
  }

  public ListTablesResponsePB listTables(String nameFilter) {
    checkLeaderReady();
    List<SysTableEntryPB> tables = catalog.read(s -> s.tables().stream()
        .filter(t -> t.getName().contains(nameFilter))
        .sorted(Comparator.comparing(SysTableEntryPB::getName))
        .toList());
    ListTablesResponsePB.Builder b = ListTablesResponsePB.newBuilder();
    for (SysTableEntryPB t : tables) {
      int tablets = catalog.read(s -> s.tabletIdsOf(t.getTableId()).size());
      b.addTables(ListTablesResponsePB.TableInfo.newBuilder()
          .setId(t.getTableId()).setName(t.getName())
          .setNumTablets(tablets).setNumReplicas(t.getNumReplicas()));
    }
    return b.build();
  }

  public GetTableSchemaResponsePB getTableSchema(TableIdentifierPB ident) {
    checkLeaderReady();
    SysTableEntryPB t = catalog.read(s -> findTable(s, ident));
    boolean done = isDone(catalog.read(s -> s.tabletsOf(t.getTableId())));
    return GetTableSchemaResponsePB.newBuilder()
        .setTableId(t.getTableId())
        .setTableName(t.getName())
        .setSchema(t.getSchema())
        .setPartitionSchema(t.getPartitionSchema())
        .setNumReplicas(t.getNumReplicas())
        .setCreateTableDone(done)
        .build();
  }

  /** Processes a heartbeat's tablet report from {@code ts}. */
  public void processReport(TSDescriptor ts, TabletReportPB report) {
    reportProcessor.process(ts, report);
  }

  /** The table an identifier names (the id wins when both are set), or NOT_FOUND naming it. */
  public static SysTableEntryPB findTable(CatalogState s, TableIdentifierPB ident) {
    if (ident == null || (ident.getTableId().isEmpty() && ident.getTableName().isEmpty())) {
      throw NyalaException.invalidArgument("a table name or id is required");
    }
    if (!ident.getTableId().isEmpty()) {
      SysTableEntryPB t = s.tableById(ident.getTableId());
      if (t == null) {
        throw NyalaException.notFound("table with id '%s' not found", ident.getTableId());
      }
      return t;
    }
    SysTableEntryPB t = s.tableByName(ident.getTableName());
    if (t == null) {
      throw NyalaException.notFound("table '%s' not found", ident.getTableName());
    }
    return t;
  }
}
