package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.partition.RangeBounds;
import io.nyala.common.partition.RangeSchema;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * What {@link NyalaClient#alterTable} changes: the table's name and any number of column steps,
 * applied in the order given, all in one new schema version. Rows written before a column was
 * added read as its default (or null). Or, in a request of their own, range partitions to add
 * and drop (docs/architecture.md, "Partitioning"), which keep the schema version.
 */
public final class AlterTableOptions {
  /** Each step, given the table's range columns (which range bounds are encoded by). */
  private final List<Function<RangeSchema, AlterTableRequestPB.Step>> steps = new ArrayList<>();
  private boolean changesRanges;
  private String newName = "";

  /** No changes yet. */
  public AlterTableOptions() {}

  /**
   * Renames the table.
   *
   * @param name the new name, not used by another table
   * @return this
   */
  public AlterTableOptions renameTable(String name) {
    if (name == null || name.isBlank()) {
      throw NyalaException.invalidArgument("new table name must not be empty");
    }
    this.newName = name;
    return this;
  }

  /**
   * Adds a non-null column; existing rows read {@code defaultValue}, which is also the value of
   * rows written without it.
   *
   * @param name the column's name
   * @param type its type
   * @param defaultValue its default, of a Java type matching {@code type}; not null
   * @return this
   */
  public AlterTableOptions addColumn(String name, Type type, Object defaultValue) {
    if (defaultValue == null) {
      throw NyalaException.invalidArgument("column '%s': a non-null column added to a table "
          + "needs a default value (use addNullableColumn otherwise)", name);
    }
    return addColumn(ColumnSchema.builder(name, type).nullable(false)
        .defaultValue(defaultValue).build());
  }

  /**
   * Adds a nullable column; existing rows read null.
   *
   * @param name the column's name
   * @param type its type
   * @return this
   */
  public AlterTableOptions addNullableColumn(String name, Type type) {
    return addColumn(ColumnSchema.builder(name, type).nullable(true).build());
  }

  /**
   * Adds a column; it must not be a key column, and must be nullable or have a default.
   *
   * @param column the column (its id is assigned by the master)
   * @return this
   */
  public AlterTableOptions addColumn(ColumnSchema column) {
    steps.add(rs -> AlterTableRequestPB.Step.newBuilder().setAddColumn(
        AlterTableRequestPB.AddColumn.newBuilder().setSchema(column.toPb())).build());
    return this;
  }

  /**
   * Drops a non-key column and its data.
   *
   * @param name the column's name
   * @return this
   */
  public AlterTableOptions dropColumn(String name) {
    steps.add(rs -> AlterTableRequestPB.Step.newBuilder().setDropColumn(
        AlterTableRequestPB.DropColumn.newBuilder().setName(name)).build());
    return this;
  }

  /**
   * Renames a non-key column; its data stays.
   *
   * @param oldName the column's current name
   * @param newName its new name
   * @return this
   */
  public AlterTableOptions renameColumn(String oldName, String newName) {
    steps.add(rs -> AlterTableRequestPB.Step.newBuilder().setRenameColumn(
        AlterTableRequestPB.RenameColumn.newBuilder().setOldName(oldName).setNewName(newName))
        .build());
    return this;
  }

  /**
   * Adds a range partition from {@code lower} (inclusive) to {@code upper} (exclusive), as
   * {@link CreateTableOptions#addRangePartition}: each bound sets every range column or none
   * (unbounded). The master creates the range's tablets (one per hash bucket combination) and
   * refuses a range that overlaps one of the table's. Cannot be combined with column changes or
   * a rename in one alter.
   *
   * @param lower the inclusive lower bound, a row of the table's schema
   * @param upper the exclusive upper bound, a row of the table's schema
   * @return this
   */
  public AlterTableOptions addRangePartition(PartialRow lower, PartialRow upper) {
    changesRanges = true;
    steps.add(rs -> AlterTableRequestPB.Step.newBuilder().setAddRangePartition(
        AlterTableRequestPB.AddRangePartition.newBuilder().setRange(
            bounds(rs, lower, upper).toPb())).build());
    return this;
  }

  /**
   * Drops a range partition: its tablets and every row in them are deleted. The bounds must be
   * exactly those of one of the table's ranges; the master refuses any other. Cannot be
   * combined with column changes or a rename in one alter.
   *
   * @param lower the range's inclusive lower bound, a row of the table's schema
   * @param upper the range's exclusive upper bound, a row of the table's schema
   * @return this
   */
  public AlterTableOptions dropRangePartition(PartialRow lower, PartialRow upper) {
    changesRanges = true;
    steps.add(rs -> AlterTableRequestPB.Step.newBuilder().setDropRangePartition(
        AlterTableRequestPB.DropRangePartition.newBuilder().setRange(
            bounds(rs, lower, upper).toPb())).build());
    return this;
  }

  private static RangeBounds bounds(RangeSchema rs, PartialRow lower, PartialRow upper) {
    if (rs.isEmpty()) {
      throw NyalaException.invalidArgument("the table has no range partition columns");
    }
    if (lower == null || upper == null) {
      throw NyalaException.invalidArgument("range bounds must not be null (use an empty row "
          + "for unbounded)");
    }
    return new RangeBounds(rs.encodeBound(lower, "lower bound"),
        rs.encodeBound(upper, "upper bound"));
  }

  /** @return whether range bounds need the table's range columns to be encoded */
  boolean changesRanges() {
    return changesRanges;
  }

  /**
   * @param rs the table's range columns (empty when no step changes ranges)
   * @return the request
   */
  AlterTableRequestPB.Builder toPb(RangeSchema rs) {
    AlterTableRequestPB.Builder b = AlterTableRequestPB.newBuilder().setNewTableName(newName);
    steps.forEach(s -> b.addAlterSchemaSteps(s.apply(rs)));
    return b;
  }

  String newName() {
    return newName;
  }
}
