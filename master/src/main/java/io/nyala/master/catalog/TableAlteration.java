package io.nyala.master.catalog;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnSchemaPB;
import io.nyala.common.proto.SchemaPB;
import io.nyala.common.proto.master.AlterTableRequestPB;
import io.nyala.common.proto.metadata.SysTableEntryPB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns an AlterTable request into the table's next catalog entry: steps applied in order to
 * the current columns, new columns get fresh ids, the schema version goes up by one. Pure: it
 * validates and builds; the caller writes. Every error is INVALID_ARGUMENT naming the table
 * and the column.
 */
final class TableAlteration {
  private TableAlteration() {}

  static SysTableEntryPB apply(SysTableEntryPB table, AlterTableRequestPB req) {
    String name = table.getName();
    if (req.getAlterSchemaStepsCount() == 0 && req.getNewTableName().isEmpty()) {
      throw NyalaException.invalidArgument("alter table '%s': nothing to change", name);
    }
    if (!req.getNewTableName().isEmpty() && req.getNewTableName().isBlank()) {
      throw NyalaException.invalidArgument("alter table '%s': new table name must not be blank",
          name);
    }
    List<ColumnSchemaPB> cols = new ArrayList<>(table.getSchema().getColumnsList());
    int nextId = Math.max(table.getNextColumnId(), maxId(cols) + 1);
    for (AlterTableRequestPB.Step step : req.getAlterSchemaStepsList()) {
      switch (step.getStepCase()) {
        case ADD_COLUMN -> cols.add(added(name, cols, step.getAddColumn().getSchema(), nextId++));
        case DROP_COLUMN -> cols.remove(existing(name, cols, step.getDropColumn().getName(),
            "drop"));
        case RENAME_COLUMN -> rename(name, cols, step.getRenameColumn());
        default -> throw NyalaException.invalidArgument(
            "alter table '%s': step %d has no change", name,
            req.getAlterSchemaStepsList().indexOf(step));
      }
    }
    SchemaPB schema = SchemaPB.newBuilder().addAllColumns(cols)
        .setVersion(table.getSchema().getVersion() + 1).build();
    try {
      Schema.forTable(Schema.fromPb(schema).columns());
    } catch (RuntimeException e) {
      throw NyalaException.invalidArgument("alter table '%s': %s", name,
          NyalaException.from(e).detail());
    }
    SysTableEntryPB.Builder b = table.toBuilder().setSchema(schema).setNextColumnId(nextId);
    if (!req.getNewTableName().isEmpty()) {
      b.setName(req.getNewTableName());
    }
    return b.build();
  }

  private static int maxId(List<ColumnSchemaPB> cols) {
    return cols.stream().mapToInt(ColumnSchemaPB::getId).max().orElse(0);
  }

  private static ColumnSchemaPB added(String table, List<ColumnSchemaPB> cols, ColumnSchemaPB c,
      int id) {
    if (c.getIsKey()) {
      throw NyalaException.invalidArgument("alter table '%s': cannot add key column '%s'",
          table, c.getName());
    }
    if (!c.getIsNullable() && !c.hasDefaultValue()) {
      throw NyalaException.invalidArgument("alter table '%s': new column '%s' must be nullable "
          + "or have a default value (existing rows need one)", table, c.getName());
    }
    if (find(cols, c.getName()) != null) {
      throw NyalaException.invalidArgument("alter table '%s': column '%s' already exists",
          table, c.getName());
    }
    try {
      ColumnSchema.fromPb(c); // type and default agree
    } catch (RuntimeException e) {
      throw NyalaException.invalidArgument("alter table '%s': %s", table,
          NyalaException.from(e).detail());
    }
    return c.toBuilder().setId(id).build();
  }

  private static ColumnSchemaPB existing(String table, List<ColumnSchemaPB> cols, String column,
      String verb) {
    ColumnSchemaPB c = find(cols, column);
    if (c == null) {
      throw NyalaException.invalidArgument("alter table '%s': cannot %s column '%s': no such "
          + "column", table, verb, column);
    }
    if (c.getIsKey()) {
      throw NyalaException.invalidArgument("alter table '%s': cannot %s key column '%s'", table,
          verb, column);
    }
    return c;
  }

  /**
   * Key columns keep their names: the partition schema (here and in every tablet's metadata)
   * refers to them by name.
   */
  private static void rename(String table, List<ColumnSchemaPB> cols,
      AlterTableRequestPB.RenameColumn r) {
    ColumnSchemaPB c = existing(table, cols, r.getOldName(), "rename");
    if (r.getNewName().isEmpty()) {
      throw NyalaException.invalidArgument("alter table '%s': new name for column '%s' must "
          + "not be empty", table, r.getOldName());
    }
    if (find(cols, r.getNewName()) != null) {
      throw NyalaException.invalidArgument("alter table '%s': cannot rename column '%s' to "
          + "'%s': that column exists", table, r.getOldName(), r.getNewName());
    }
    cols.set(cols.indexOf(c), c.toBuilder().setName(r.getNewName()).build());
  }

  private static ColumnSchemaPB find(List<ColumnSchemaPB> cols, String name) {
    return cols.stream().filter(c -> c.getName().equals(name)).findFirst().orElse(null);
  }
}
