package io.nyala.common.server;

import io.nyala.common.NyalaException;
import java.lang.reflect.Field;
import java.util.Objects;
import picocli.CommandLine.Option;

/**
 * The check behind {@link ServerOptions#checkUnsafeFlags()}: every {@code --fault_*} flag of the
 * role's options class at its default unless {@code --unlock_unsafe_flags}.
 */
final class UnsafeFlags {
  private UnsafeFlags() {}

  static void check(ServerOptions options) {
    if (options.unlockUnsafeFlags) {
      return;
    }
    ServerOptions defaults;
    try {
      defaults = options.getClass().getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(options.getClass() + " needs a public no-argument "
          + "constructor", e);
    }
    for (Class<?> c = options.getClass(); c != null; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        Option o = f.getAnnotation(Option.class);
        if (o == null || !o.names()[0].startsWith("--fault_")) {
          continue;
        }
        try {
          if (!Objects.equals(f.get(options), f.get(defaults))) {
            throw NyalaException.invalidArgument("%s is an unsafe flag, for tests only: a "
                + "server refuses to start with it unless --unlock_unsafe_flags is also given",
                o.names()[0]);
          }
        } catch (IllegalAccessException e) {
          throw new IllegalStateException("flag field " + f + " must be public", e);
        }
      }
    }
  }
}
