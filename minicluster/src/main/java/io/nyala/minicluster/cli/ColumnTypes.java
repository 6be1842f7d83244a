package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import io.nyala.common.schema.Type;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Column type names as the table commands take them ({@code table alter --add-column},
 * {@code table create --schema}): a {@link Type} name in any case, e.g. {@code int64}.
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
    try {
      return Type.valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw NyalaException.invalidArgument("%s '%s': unknown type '%s' (valid types: %s)", option,
          spec, name, valid());
    }
  }

  /** The valid type names, lower case, comma-separated, in {@link Type}'s order. */
  static String valid() {
    return Arrays.stream(Type.values()).map(t -> t.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(", "));
  }
}
