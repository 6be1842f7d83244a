package io.nyala.master.catalog;

import com.google.protobuf.ByteString;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.RaftPeerPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.master.CreateTableRequestPB;
import io.nyala.common.proto.metadata.SysCatalogBatchPB;
import io.nyala.common.proto.metadata.SysCatalogOpPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.proto.metadata.SysTabletStatePB;
import io.nyala.common.proto.metadata.TableStatePB;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.WrappedKey;
import io.nyala.master.placement.ReplicaPlacer;
import io.nyala.master.tsmanager.TSDescriptor;
import io.nyala.master.tsmanager.TSManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a new table's catalog entries for CreateTable (docs/architecture.md, "Tablet
 * creation"): the table with its first schema, and one CREATING tablet per partition whose
 * replicas {@link ReplicaPlacer} puts on the least-loaded live tservers, each tablet with a
 * fresh data key wrapped by the cluster key when the cluster encrypts. Builds only; the caller
 * checks the name and writes the batch under its DDL lock.
 */
final class NewTableEntries {
  /** The entries of one new table and the one batch that writes them all. */
  record Entries(SysTableEntryPB table, List<SysTabletEntryPB> tablets, SysCatalogBatchPB batch) {}

  private final SysCatalog catalog;
  private final TSManager tsManager;
  private final ReplicaPlacer placer;
  /** Wraps new tablet keys; null when the cluster does not encrypt. */
  private final KeyProvider keys;
  private final int keyBits;

  NewTableEntries(SysCatalog catalog, TSManager tsManager, ReplicaPlacer placer,
      KeyProvider keys, int keyBits) {
    this.catalog = catalog;
    this.tsManager = tsManager;
    this.placer = placer;
    this.keys = keys;
    this.keyBits = keyBits;
  }

  Entries build(String name, CreateTableRequestPB req, PartitionSchema ps, int rf,
      List<PartitionPB> partitions) {
    SysTableEntryPB table = SysTableEntryPB.newBuilder()
        .setTableId(RaftIds.newId())
        .setName(name)
        .setSchema(withColumnIds(req.getSchema()))
        .setPartitionSchema(ps.toPb())
        .setNumReplicas(rf)
        .setState(TableStatePB.TABLE_RUNNING)
        .setCreatedTimeMillis(System.currentTimeMillis())
        .setNextColumnId(req.getSchema().getColumnsCount() + 1)
        .setCreateRequestId(req.getRequestId())
        .build();
    List<SysTabletEntryPB> tablets = tablets(table, partitions, rf);
    SysCatalogBatchPB.Builder batch = SysCatalogBatchPB.newBuilder()
        .addOps(SysCatalogOpPB.newBuilder().setPutTable(table));
    tablets.forEach(t -> batch.addOps(SysCatalogOpPB.newBuilder().setPutTablet(t)));
    return new Entries(table, tablets, batch.build());
  }

  /**
   * New CREATING tablets of {@code table}, one per partition, for CreateTable and for the
   * ranges AlterTable adds (docs/architecture.md, "Partitioning").
   */
  List<SysTabletEntryPB> tablets(SysTableEntryPB table, List<PartitionPB> partitions, int rf) {
    List<TSDescriptor> live = tsManager.placeable();
    Map<String, Integer> loads = new HashMap<>();
    Map<String, Integer> counts = replicaCounts();
    live.forEach(d -> loads.put(d.uuid(), counts.getOrDefault(d.uuid(), 0)));
    List<List<String>> placement = placer.place(loads, partitions.size(), rf);
    List<SysTabletEntryPB> tablets = new ArrayList<>();
    for (int i = 0; i < partitions.size(); i++) {
      SysTabletEntryPB.Builder tb = SysTabletEntryPB.newBuilder()
          .setTabletId(RaftIds.newId())
          .setTableId(table.getTableId())
          .setPartition(partitions.get(i))
          .addAllReplicas(peers(placement.get(i)))
          .setState(SysTabletStatePB.SYS_TABLET_CREATING);
      if (keys != null) {
        WrappedKey w = keys.wrapServerKey(KeyMaterial.random(keyBits));
        tb.setWrappedTabletKey(ByteString.copyFrom(w.wrapped()))
            .setTabletKeyVersion(w.clusterKeyVersion());
      }
      tablets.add(tb.build());
    }
    return tablets;
  }

  /** Column ids start at 1 (0 means unassigned); the first schema version is 1. */
  private static SchemaPB withColumnIds(SchemaPB in) {
    SchemaPB.Builder b = SchemaPB.newBuilder().setVersion(1);
    int id = 1;
    for (ColumnSchemaPB c : in.getColumnsList()) {
      b.addColumns(c.toBuilder().setId(id++));
    }
    return b.build();
  }

  private List<RaftPeerPB> peers(List<String> uuids) {
    List<RaftPeerPB> out = new ArrayList<>();
    for (String u : uuids) {
      TSDescriptor d = tsManager.get(u);
      out.add(RaftPeerPB.newBuilder()
          .setUuid(u)
          .setRaftAddress(d.registration().getRaftAddress())
          .setRpcAddress(d.registration().getRpcAddress())
          .build());
    }
    return out;
  }

  /** Replicas per tserver uuid, as the catalog assigns them. */
  Map<String, Integer> replicaCounts() {
    return catalog.read(s -> {
      Map<String, Integer> m = new HashMap<>();
      for (SysTabletEntryPB t : s.tablets()) {
        t.getReplicasList().forEach(r -> m.merge(r.getUuid(), 1, Integer::sum));
      }
      return m;
    });
  }
}
