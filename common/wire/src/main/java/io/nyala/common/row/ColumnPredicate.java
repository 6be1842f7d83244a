package io.nyala.common.row;

import io.nyala.common.InternalApi;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.ColumnPredicatePB;
import io.nyala.common.proto.PredicateOpPB;
import io.nyala.common.proto.ValuePB;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import java.util.ArrayList;
import java.util.List;

/**
 * A filter on one column: a comparison with a literal, membership in a list, or (not) null.
 * Build one with the factories ({@link #comparison}, {@link #inList}, {@link #isNull},
 * {@link #isNotNull}, or Kudu's names such as {@link #newComparisonPredicate}); a scan binds it
 * to the table's schema, which checks the column and converts the literals.
 *
 * @param column the column's name
 * @param op the operator
 * @param value the literal of a comparison, else null
 * @param inValues the literals of IN_LIST, else empty
 */
public record ColumnPredicate(String column, Op op, Object value, List<Object> inValues) {

  /** Predicate operators. */
  public enum Op {
    /** The value equals the literal. */
    EQUAL,
    /** The value sorts before the literal. */
    LESS,
    /** The value sorts before or equals the literal. */
    LESS_EQUAL,
    /** The value sorts after the literal. */
    GREATER,
    /** The value sorts after or equals the literal. */
    GREATER_EQUAL,
    /** The value equals one of the literals. */
    IN_LIST,
    /** The value is null. */
    IS_NULL,
    /** The value is not null. */
    IS_NOT_NULL
  }

  /**
   * A comparison of a column with a literal; null never passes.
   *
   * @param column the column's name
   * @param op EQUAL, LESS, LESS_EQUAL, GREATER or GREATER_EQUAL
   * @param value the literal, of the column's type (integers are narrowed when bound)
   * @return the predicate
   * @throws NyalaException INVALID_ARGUMENT if {@code op} is not a comparison or the value is
   *     null
   */
  public static ColumnPredicate comparison(String column, Op op, Object value) {
    if (op == Op.IN_LIST || op == Op.IS_NULL || op == Op.IS_NOT_NULL) {
      throw NyalaException.invalidArgument("%s is not a comparison operator", op);
    }
    if (value == null) {
      throw NyalaException.invalidArgument(
          "predicate on column '%s' compares with null; use IS NULL", column);
    }
    return new ColumnPredicate(column, op, value, List.of());
  }

  /**
   * Membership of a column's value in a list of literals; null never passes.
   *
   * @param column the column's name
   * @param values the literals, none null
   * @return the predicate
   * @throws NyalaException INVALID_ARGUMENT naming the column if a literal is null
   */
  public static ColumnPredicate inList(String column, List<?> values) {
    for (Object v : values) {
      if (v == null) {
        throw NyalaException.invalidArgument("IN list for column '%s' holds a null", column);
      }
    }
    return new ColumnPredicate(column, Op.IN_LIST, null, List.copyOf(values));
  }

  /**
   * Passes rows whose column is null.
   *
   * @param column the column's name
   * @return the predicate
   */
  public static ColumnPredicate isNull(String column) {
    return new ColumnPredicate(column, Op.IS_NULL, null, List.of());
  }

  /**
   * Passes rows whose column is not null.
   *
   * @param column the column's name
   * @return the predicate
   */
  public static ColumnPredicate isNotNull(String column) {
    return new ColumnPredicate(column, Op.IS_NOT_NULL, null, List.of());
  }

  /**
   * Kudu's name for {@link #comparison}: a comparison of a column with a literal.
   *
   * @param column the column, e.g. from {@code table.getSchema().column("ts")}
   * @param op EQUAL, LESS, LESS_EQUAL, GREATER or GREATER_EQUAL
   * @param value the literal, of the column's type
   * @return the predicate
   * @throws NyalaException INVALID_ARGUMENT if {@code op} is not a comparison or the value is
   *     null
   */
  public static ColumnPredicate newComparisonPredicate(
      ColumnSchema column, Op op, Object value) {
    return comparison(column.name(), op, value);
  }

  /**
   * Kudu's name for {@link #inList}: membership of a column's value in a list of literals.
   *
   * @param column the column
   * @param values the literals, none null
   * @return the predicate
   * @throws NyalaException INVALID_ARGUMENT naming the column if a literal is null
   */
  public static ColumnPredicate newInListPredicate(ColumnSchema column, List<?> values) {
    return inList(column.name(), values);
  }

  /**
   * Kudu's name for {@link #isNull}: passes rows whose column is null.
   *
   * @param column the column
   * @return the predicate
   */
  public static ColumnPredicate newIsNullPredicate(ColumnSchema column) {
    return isNull(column.name());
  }

  /**
   * Kudu's name for {@link #isNotNull}: passes rows whose column is not null.
   *
   * @param column the column
   * @return the predicate
   */
  public static ColumnPredicate newIsNotNullPredicate(ColumnSchema column) {
    return isNotNull(column.name());
  }

  /**
   * Checks column and literal types against {@code schema} and coerces the literals.
   *
   * @param schema the schema of the rows the predicate will test
   * @return the bound predicate
   * @throws NyalaException NOT_FOUND or INVALID_ARGUMENT naming the column if it is absent or a
   *     literal does not fit its type
   */
  public ColumnPredicate bind(Schema schema) {
    ColumnSchema c = schema.column(column);
    return switch (op) {
      case IS_NULL, IS_NOT_NULL -> this;
      case IN_LIST -> {
        List<Object> vs = new ArrayList<>(inValues.size());
        for (Object v : inValues) {
          vs.add(c.checkLiteral(v));
        }
        yield new ColumnPredicate(column, op, null, vs);
      }
      default -> new ColumnPredicate(column, op, c.checkLiteral(value), List.of());
    };
  }

  /**
   * Whether a value of the column passes. Call on a bound predicate.
   *
   * @param t the column's type
   * @param v the value, or null for SQL NULL
   * @return true if it passes
   */
  public boolean test(Type t, Object v) {
    if (op == Op.IS_NULL) {
      return v == null;
    }
    if (op == Op.IS_NOT_NULL) {
      return v != null;
    }
    if (v == null) {
      return false;
    }
    if (op == Op.IN_LIST) {
      for (Object x : inValues) {
        if (t.valueEquals(v, x)) {
          return true;
        }
      }
      return false;
    }
    int c = t.compare(v, value);
    return switch (op) {
      case EQUAL -> c == 0;
      case LESS -> c < 0;
      case LESS_EQUAL -> c <= 0;
      case GREATER -> c > 0;
      case GREATER_EQUAL -> c >= 0;
      default -> throw new AssertionError(op);
    };
  }

  /**
   * The wire form, with the literals converted to the column's type.
   *
   * @param schema the table's schema
   * @return the predicate as a {@code ColumnPredicatePB}
   */
  @InternalApi
  public ColumnPredicatePB toPb(Schema schema) {
    ColumnSchema c = schema.column(column);
    Type t = c.type();
    ColumnPredicatePB.Builder b = ColumnPredicatePB.newBuilder()
        .setColumn(column).setOp(PredicateOpPB.valueOf(op.name()));
    if (value != null) {
      b.setValue(t.toValuePb(c.checkLiteral(value)));
    }
    for (Object v : inValues) {
      b.addInValues(t.toValuePb(c.checkLiteral(v)));
    }
    return b.build();
  }

  /**
   * Decodes and binds a wire predicate; errors name the column.
   *
   * @param schema the table's schema
   * @param pb a predicate on the wire
   * @return the bound predicate
   */
  @InternalApi
  public static ColumnPredicate fromPb(Schema schema, ColumnPredicatePB pb) {
    String col = pb.getColumn();
    Type t = schema.column(col).type();
    if (pb.getOp() == PredicateOpPB.PREDICATE_UNKNOWN || pb.getOp() == PredicateOpPB.UNRECOGNIZED) {
      throw NyalaException.invalidArgument("predicate on column '%s' has no operator", col);
    }
    Op op = Op.valueOf(pb.getOp().name());
    return switch (op) {
      case IS_NULL -> isNull(col);
      case IS_NOT_NULL -> isNotNull(col);
      case IN_LIST -> {
        List<Object> vs = new ArrayList<>();
        for (ValuePB v : pb.getInValuesList()) {
          vs.add(t.fromValuePb(col, v));
        }
        yield inList(col, vs);
      }
      default -> {
        if (!pb.hasValue()) {
          throw NyalaException.invalidArgument(
              "predicate %s on column '%s' has no value", op, col);
        }
        yield comparison(col, op, t.fromValuePb(col, pb.getValue()));
      }
    };
  }
}
