package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link NyalaClient#alterTable} changes: the table's name and any number of column steps,
 * applied in the order given, all in one new schema version. Rows written before a column was
 * added read as its default (or null).
 */
public final class AlterTableOptions {
  private final List<AlterTableRequestPB.Step> steps = new ArrayList<>();
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
    steps.add(AlterTableRequestPB.Step.newBuilder().setAddColumn(
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
    steps.add(AlterTableRequestPB.Step.newBuilder().setDropColumn(
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
    steps.add(AlterTableRequestPB.Step.newBuilder().setRenameColumn(
        AlterTableRequestPB.RenameColumn.newBuilder().setOldName(oldName).setNewName(newName))
        .build());
    return this;
  }

  AlterTableRequestPB.Builder toPb() {
    return AlterTableRequestPB.newBuilder().addAllAlterSchemaSteps(steps)
        .setNewTableName(newName);
  }

  String newName() {
    return newName;
  }
}
