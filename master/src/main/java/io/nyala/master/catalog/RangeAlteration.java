package io.nyala.master.catalog;

import io.nyala.common.NyalaException;
import io.nyala.common.partition.PartitionSchema;
import io.nyala.common.partition.RangeBounds;
import io.nyala.common.proto.PartitionPB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.master.AlterTableRequestPB.Step.StepCase;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Turns an AlterTable request's range steps into the table's next partitioning, the partitions
 * of the ranges it adds and the tablets of the ranges it drops (docs/architecture.md,
 * "Partitioning"). Steps apply in order; an added range must not overlap the table's ranges,
 * a dropped one must be exactly one of them. Pure: it validates and builds; the caller writes.
 * Every error is INVALID_ARGUMENT naming the table and the range.
 */
final class RangeAlteration {
  /**
   * What a range alter changes.
   *
   * @param table the table's next entry (its new partition schema and the request id)
   * @param added the partitions of the added ranges, to become new tablets
   * @param dropped the tablets of the dropped ranges
   */
  record Result(SysTableEntryPB table, List<PartitionPB> added,
      List<SysTabletEntryPB> dropped) {}

  private RangeAlteration() {}

  /** @return whether the request adds or drops range partitions */
  static boolean changesRanges(AlterTableRequestPB req) {
    return req.getAlterSchemaStepsList().stream().anyMatch(RangeAlteration::isRangeStep);
  }

  private static boolean isRangeStep(AlterTableRequestPB.Step s) {
    return s.getStepCase() == StepCase.ADD_RANGE_PARTITION
        || s.getStepCase() == StepCase.DROP_RANGE_PARTITION;
  }

  static Result apply(SysTableEntryPB table, List<SysTabletEntryPB> tablets,
      AlterTableRequestPB req) {
    String name = table.getName();
    if (!req.getNewTableName().isEmpty()
        || !req.getAlterSchemaStepsList().stream().allMatch(RangeAlteration::isRangeStep)) {
      throw NyalaException.invalidArgument("alter table '%s': range partition steps cannot be "
          + "combined with column changes or a rename in one request", name);
    }
    try {
      Schema schema = Schema.fromPb(table.getSchema());
      PartitionSchema ps = PartitionSchema.fromPb(table.getPartitionSchema(), schema);
      List<RangeBounds> added = new ArrayList<>();
      List<RangeBounds> dropped = new ArrayList<>();
      for (AlterTableRequestPB.Step step : req.getAlterSchemaStepsList()) {
        if (step.getStepCase() == StepCase.ADD_RANGE_PARTITION) {
          RangeBounds r = RangeBounds.fromPb(step.getAddRangePartition().getRange());
          ps = ps.withRange(r, schema);
          added.add(r);
        } else {
          RangeBounds r = RangeBounds.fromPb(step.getDropRangePartition().getRange());
          ps = ps.withoutRange(r, schema);
          if (!added.remove(r)) {
            dropped.add(r);
          }
        }
      }
      added.sort(Comparator.comparing(RangeBounds::lower, Arrays::compareUnsigned));
      List<PartitionPB> partitions = added.isEmpty() ? List.of() : ps.rangePartitions(added);
      List<SysTabletEntryPB> droppedTablets = tablets.stream()
          .filter(t -> t.getPartition().hasRange()
              && dropped.contains(RangeBounds.fromPb(t.getPartition().getRange())))
          .toList();
      SysTableEntryPB next = table.toBuilder().setPartitionSchema(ps.toPb())
          .setLastAlterRequestId(req.getRequestId()).build();
      return new Result(next, partitions, droppedTablets);
    } catch (RuntimeException e) {
      throw NyalaException.invalidArgument("alter table '%s': %s", name,
          NyalaException.from(e).detail());
    }
  }
}
