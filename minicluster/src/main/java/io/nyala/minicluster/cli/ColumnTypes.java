package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Type;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Column type names as the table commands take them ({@code table alter --add-column},
 * {@code table create --schema}): a {@link Type} name in any case, e.g. {@code int64}, with a
 * DECIMAL's precision and scale or a VARCHAR's length in parentheses: {@code decimal(10,2)},
 * {@code varchar(20)}, as {@code table describe} prints them.
 */
final class ColumnTypes {
  private ColumnTypes() {}

  /**
   * The type called {@code name}.
   *
   * @param option the option being parsed, for the message (e.g. {@code --add-column})
   * @param spec the whole value of the option, for the message
   * @param name the type's name, any case
   * @throws NyalaException INVALID_ARGUMENT naming the option, the value and the valid types
   */
  static Type parse(String option, String spec, String name) {
    String base = name.trim();
    int paren = base.indexOf('(');
    try {
      return Type.valueOf(
          (paren < 0 ? base : base.substring(0, paren)).trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("%s '%s': unknown type '%s' (valid types: %s)", option,
          spec, name, valid());
    }
  }

  /**
   * Starts a column named {@code column} of the type {@code name} spells, with its attributes.
   *
   * @throws NyalaException INVALID_ARGUMENT naming the option and the value if the type or its
   *     attributes are malformed
   */
  static ColumnSchema.Builder column(String option, String spec, String column, String name) {
    Type type = parse(option, spec, name);
    ColumnSchema.Builder b = ColumnSchema.builder(column, type);
    String t = name.trim();
    int open = t.indexOf('(');
    if (open < 0) {
      return b;
    }
    if (!t.endsWith(")")) {
      throw NyalaException.invalidArgument("%s '%s': type '%s' lacks a closing ')'", option,
          spec, name);
    }
    String[] args = t.substring(open + 1, t.length() - 1).split(",", -1);
    try {
      if (type == Type.DECIMAL && args.length == 2) {
        return b.precision(Integer.parseInt(args[0].trim()))
            .scale(Integer.parseInt(args[1].trim()));
      }
      if (type == Type.VARCHAR && args.length == 1) {
        return b.length(Integer.parseInt(args[0].trim()));
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw NyalaException.invalidArgument("%s '%s': type '%s' takes %s", option, spec, name,
        type == Type.DECIMAL ? "(precision,scale), e.g. decimal(10,2)"
            : type == Type.VARCHAR ? "(length), e.g. varchar(20)" : "no parameters");
  }

  /**
   * The valid type names, lower case, comma-separated, in {@link Type}'s order, with the
   * parameters DECIMAL and VARCHAR take.
   */
  static String valid() {
    return Arrays.stream(Type.values()).map(t -> t.name().toLowerCase(Locale.ROOT)
        + (t == Type.DECIMAL ? "(p,s)" : t == Type.VARCHAR ? "(n)" : ""))
        .collect(Collectors.joining(", "));
  }
}
