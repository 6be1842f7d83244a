package io.nyala.client;

import io.nyala.common.NyalaException;
import io.nyala.common.row.RowOpType;
import io.nyala.common.row.RowOperations;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.PartialRow;
import io.nyala.common.schema.Schema;

/**
 * One row operation (insert, upsert, update, delete or an IGNORE variant) on a table. Made by
 * the table's factory methods (e.g. {@link NyalaTable#newInsert()}); fill {@link #getRow()} and
 * apply it to a {@link NyalaSession}. Do not change the row after applying it.
 */
public final class Operation {
  private final NyalaTable table;
  private final RowOpType type;
  private final PartialRow row;

  Operation(NyalaTable table, RowOpType type) {
    this.table = table;
    this.type = type;
    this.row = table.getSchema().newPartialRow();
  }

  /** @return the row to fill: key columns always, other columns as the operation needs */
  public PartialRow getRow() {
    return row;
  }

  /** @return the kind of operation */
  public RowOpType getType() {
    return type;
  }

  /** @return the table the operation writes to */
  public NyalaTable getTable() {
    return table;
  }

  /**
   * Checks the row before it is sent, so that mistakes fail at {@code apply} with a message
   * naming the column rather than as a server error later: every key column set and non-null;
   * an INSERT or UPSERT sets every non-nullable column that has no default; a DELETE sets only
   * key columns. (Types and nulls were checked as the row was filled.)
   *
   * @throws NyalaException INVALID_ARGUMENT naming the column
   */
  void validate() {
    Schema schema = table.getSchema();
    row.checkKeySet();
    boolean writesAllColumns = type == RowOpType.INSERT || type == RowOpType.INSERT_IGNORE
        || type == RowOpType.UPSERT;
    for (int i = schema.keyColumnCount(); i < schema.columnCount(); i++) {
      ColumnSchema c = schema.column(i);
      if (writesAllColumns && !c.nullable() && c.defaultValue() == null && !row.isSet(i)) {
        throw NyalaException.invalidArgument(
            "%s on table '%s' is missing non-nullable column '%s', which has no default",
            type, table.getName(), c.name());
      }
      if (type.isDelete() && row.isSet(i)) {
        throw NyalaException.invalidArgument(
            "%s on table '%s' sets non-key column '%s'; a delete names only the key columns",
            type, table.getName(), c.name());
      }
    }
  }

  /** @return the partition key of the row, which picks its tablet */
  byte[] partitionKey() {
    return table.getPartitionSchema().partitionKey(row.valuesUnsafe());
  }

  /** @return the operation in the row codec's form */
  RowOperations.Op toOp() {
    return new RowOperations.Op(type, row);
  }

  @Override
  public String toString() {
    return type + " " + row + " on table '" + table.getName() + "'";
  }
}
