package io.nyala.master.catalog;

import io.nyala.common.HostPort;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableResponsePB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.tserver.DeleteTabletRequestPB;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out an AlterTable that adds or drops range partitions (docs/architecture.md,
 * "Partitioning"): one catalog batch writes the table's new partition schema, the added ranges'
 * CREATING tablets and the removal of the dropped ranges' tablets; then the new tablets are
 * created as CreateTable's are ({@link TabletCreator}) and each replica of a dropped tablet gets
 * a DeleteTablet, as DeleteTable sends. The caller holds the DDL lock.
 */
final class RangeChanges {
  private static final Logger LOG = LoggerFactory.getLogger(RangeChanges.class);

  private final SysCatalog catalog;
  private final NewTableEntries newTables;
  private final TabletCreator creator;
  private final ReplicaReports reports;
  private final TabletReportProcessor reportProcessor;

  RangeChanges(SysCatalog catalog, NewTableEntries newTables, TabletCreator creator,
      ReplicaReports reports, TabletReportProcessor reportProcessor) {
    this.catalog = catalog;
    this.newTables = newTables;
    this.creator = creator;
    this.reports = reports;
    this.reportProcessor = reportProcessor;
  }

  /**
   * Applies a range alter to {@code table}.
   *
   * @param table the table's current entry
   * @param req the request, whose steps all add or drop ranges
   * @return the answer (the schema version is unchanged)
   */
  AlterTableResponsePB apply(SysTableEntryPB table, AlterTableRequestPB req) {
    List<SysTabletEntryPB> tablets = catalog.read(s -> s.tabletsOf(table.getTableId()));
    RangeAlteration.Result r = RangeAlteration.apply(table, tablets, req);
    List<SysTabletEntryPB> added = newTables.tablets(r.table(), r.added(),
        table.getNumReplicas());
    SysCatalogBatchPB.Builder batch = SysCatalogBatchPB.newBuilder()
        .addOps(SysCatalogOpPB.newBuilder().setPutTable(r.table()));
    added.forEach(t -> batch.addOps(SysCatalogOpPB.newBuilder().setPutTablet(t)));
    r.dropped().forEach(t -> batch.addOps(
        SysCatalogOpPB.newBuilder().setDeleteTabletId(t.getTabletId())));
    catalog.writeSync(batch.build());
    LOG.info("altered ranges of table '{}' ({}): {} tablets added, {} dropped", table.getName(),
        table.getTableId(), added.size(), r.dropped().size());
    creator.sendAll(r.table(), added);
    String reason = "a range partition of table '" + table.getName() + "' was dropped";
    for (SysTabletEntryPB t : r.dropped()) {
      reports.forget(t.getTabletId());
      for (RaftPeerPB p : t.getReplicasList()) {
        reportProcessor.sendDelete(p.getUuid(), HostPort.fromPb(p.getRpcAddress()),
            DeleteTabletRequestPB.newBuilder().setTabletId(t.getTabletId()).setReason(reason)
                .setTabletDropped(true).build());
      }
    }
    return AlterTableResponsePB.newBuilder().setTableId(table.getTableId())
        .setSchemaVersion(table.getSchema().getVersion()).build();
  }
}
