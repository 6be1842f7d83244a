package io.nyala.tserver.tablet.maintenance;

import io.nyala.common.fault.CrashPoints;
import io.nyala.common.schema.Schema;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.tablet.StoreCrashPoints;
import io.nyala.tserver.tablet.StoreState;
import io.nyala.tserver.tablet.Superblock;
import io.nyala.tserver.tablet.maintenance.CompactionResult.Kind;
import io.nyala.tserver.tablet.rowset.DiskLayer;
import io.nyala.tserver.tablet.rowset.DiskLayerWriter;
import io.nyala.tserver.tablet.rowset.Layer;
import io.nyala.tserver.tablet.rowset.MemLayer;
import io.nyala.tserver.tablet.rowset.Projection;
import io.nyala.tserver.tablet.rowset.RowSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one compaction a {@link CompactionPolicy} picked, for {@link StoreMaintenance} (which
 * holds its one-operation-at-a-time lock meanwhile): merge the chosen on-disk layers into one new
 * layer (its own creation transaction), swap it in ({@link StoreState#swapRowsets}), write the
 * superblock, then release the layers it replaced. Other rowsets are not touched; in-memory
 * layers of the inputs stay on top of the result, so writes go on meanwhile. It never moves the
 * durable index.
 */
final class StoreCompaction {
  private static final Logger LOG = LoggerFactory.getLogger(StoreCompaction.class);
  private final StoreMaintenance maintenance;
  private final String tabletId;
  private final BlockManager blocks;
  private final StoreState state;

  StoreCompaction(StoreMaintenance maintenance, String tabletId, BlockManager blocks,
      StoreState state) {
    this.maintenance = maintenance;
    this.tabletId = tabletId;
    this.blocks = blocks;
    this.state = state;
  }

  /** The flushed rowsets as the policy sees them. */
  static List<CompactionPolicy.Candidate> candidates(List<RowSet> rowsets) {
    List<CompactionPolicy.Candidate> out = new ArrayList<>();
    for (RowSet rs : rowsets) {
      List<Long> sizes = rs.diskLayers().stream().map(DiskLayer::sizeBytes).toList();
      if (!sizes.isEmpty()) {
        out.add(new CompactionPolicy.Candidate(rs.id(), sizes));
      }
    }
    return out;
  }

  CompactionResult run(CompactionPolicy.Plan plan) {
    List<RowSet> inputs = new ArrayList<>();
    Set<Long> ids = new HashSet<>(plan instanceof CompactionPolicy.Merge m ? m.rowsets()
        : List.of(((CompactionPolicy.Deltas) plan).rowset()));
    for (RowSet rs : state.rowsets()) {
      if (ids.contains(rs.id())) {
        inputs.add(rs);
      }
    }
    Kind kind = plan instanceof CompactionPolicy.Merge ? Kind.MERGE_ROWSETS
        : ((CompactionPolicy.Deltas) plan).major() ? Kind.MAJOR_DELTA : Kind.MINOR_DELTA;
    return compact(inputs, kind);
  }

  private CompactionResult compact(List<RowSet> inputs, Kind kind) {
    long horizon = state.gcHorizon();
    Superblock sb = maintenance.durable();
    List<DiskLayer> old = new ArrayList<>();
    for (RowSet rs : inputs) {
      List<DiskLayer> disk = rs.diskLayers();
      old.addAll(kind == Kind.MINOR_DELTA ? disk.subList(1, disk.size()) : disk);
    }
    // On-disk data is all at or below the durable index, so it is written in that schema. A
    // minor compaction keeps deletions: the base below may still hold their keys.
    DiskLayer out = write(old, new Projection(sb.schema()), horizon, kind != Kind.MINOR_DELTA);
    int rowsetsOut = install(inputs, kind, out);
    maintenance.writeSuperblock(sb.durableIndex(), sb.durableTerm(), sb.schema(),
        sb.liveRows());
    CrashPoints.maybeCrash(StoreCrashPoints.COMPACTION_BEFORE_RELEASE);
    old.forEach(DiskLayer::release);
    CompactionResult r = new CompactionResult(kind, inputs.size(), rowsetsOut, old.size(),
        out == null ? 0 : 1, old.stream().mapToLong(DiskLayer::sizeBytes).sum(),
        out == null ? 0 : out.sizeBytes());
    LOG.info("tablet {}: {} compaction of rowsets {}: {} rowsets -> {}, {} layers ({} bytes) -> "
        + "{} ({} bytes)", tabletId, kind, inputs.stream().map(RowSet::id).toList(),
        r.rowsetsIn(), r.rowsetsOut(), r.layersIn(), r.bytesIn(), r.layersOut(), r.bytesOut());
    return r;
  }

  /** Streams the merge of {@code old} into a new layer in a transaction of its own. */
  private DiskLayer write(List<DiskLayer> old, Projection proj, long horizon,
      boolean dropTombstones) {
    try (BlockManager.CreationTransaction txn = blocks.newCreation()) {
      List<BlockId> ids =
          DiskLayerWriter.merge(old, proj, horizon, dropTombstones, txn).finish();
      if (ids.isEmpty()) {
        return null;
      }
      txn.commit();
      DiskLayer out = DiskLayer.open(blocks, ids);
      maintenance.watch(out);
      return out;
    }
  }

  /**
   * Swaps {@code out} in for the inputs' compacted layers: a delta compaction rebuilds its rowset
   * under the same id, a merge replaces the inputs by one new rowset. Returns the rowsets left.
   */
  private int install(List<RowSet> inputs, Kind kind, DiskLayer out) {
    List<RowSet> results = new ArrayList<>(1);
    state.swapRowsets((cur, schema, newId) -> {
      List<RowSet> next = new ArrayList<>();
      RowSet result =
          kind == Kind.MERGE_ROWSETS ? merged(cur, inputs, out, schema, newId) : null;
      for (RowSet rs : cur) {
        if (!contains(inputs, rs.id())) {
          next.add(rs);
        } else if (kind != Kind.MERGE_ROWSETS) {
          result = rebuilt(rs, kind, out);
          if (!result.isEmpty()) {
            next.add(result);
          }
        }
      }
      if (kind == Kind.MERGE_ROWSETS && !result.isEmpty()) {
        next.add(next.size() - 1, result); // just below the MemRowSet
      }
      results.add(result);
      return next;
    });
    return results.get(0).isEmpty() ? 0 : 1;
  }

  private static boolean contains(List<RowSet> inputs, long id) {
    return inputs.stream().anyMatch(r -> r.id() == id);
  }

  /** One rowset of {@code out} and the inputs' in-memory layers, under a new id. */
  private static RowSet merged(List<RowSet> cur, List<RowSet> inputs, DiskLayer out,
      Schema schema, LongSupplier newRowSetId) {
    List<Layer> layers = new ArrayList<>();
    if (out != null) {
      layers.add(out);
    }
    for (RowSet rs : cur) {
      if (!contains(inputs, rs.id())) {
        continue;
      }
      for (Layer l : rs.layers()) {
        if (l instanceof MemLayer m && !m.isEmpty()) {
          layers.add(l);
        }
      }
    }
    layers.add(new MemLayer(schema));
    return new RowSet(newRowSetId.getAsLong(), layers);
  }

  /** {@code rs} with its compacted disk layers replaced by {@code out} (kept: base if minor). */
  private static RowSet rebuilt(RowSet rs, Kind kind, DiskLayer out) {
    List<Layer> layers = new ArrayList<>();
    if (kind == Kind.MINOR_DELTA) {
      layers.add(rs.diskLayers().get(0));
    }
    if (out != null) {
      layers.add(out);
    }
    for (Layer l : rs.layers()) {
      if (l instanceof MemLayer) {
        layers.add(l);
      }
    }
    return new RowSet(rs.id(), layers);
  }
}
