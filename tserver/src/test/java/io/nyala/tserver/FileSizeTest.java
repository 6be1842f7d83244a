package io.nyala.tserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No main-code file of any module is over {@link #MAX_LINES} lines (docs/conventions.md): a
 * class that grows past it is doing more than one job and gets cut, not let through.
 */
@Timeout(30)
class FileSizeTest {
  static final int MAX_LINES = 400;

  @Test
  void noMainFileIsOverTheLimit() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    List<String> over = new ArrayList<>();
    for (String module : List.of("common/wire", "common/server", "master", "tserver", "client",
        "minicluster")) {
      Path main = root.resolve(module).resolve("src/main/java");
      assertThat(main).as("module sources").isDirectory();
      try (Stream<Path> files = Files.walk(main)) {
        files.filter(p -> p.toString().endsWith(".java")).forEach(p -> {
          long lines = lines(p);
          if (lines > MAX_LINES) {
            over.add(root.relativize(p) + " (" + lines + " lines)");
          }
        });
      }
    }
    assertThat(over).as("main-code files over %d lines", MAX_LINES).isEmpty();
  }

  private static long lines(Path p) {
    try (Stream<String> s = Files.lines(p)) {
      return s.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
