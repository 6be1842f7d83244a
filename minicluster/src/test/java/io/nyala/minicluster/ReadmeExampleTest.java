package io.nyala.minicluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The README's client example is the body of {@code App.run} in the user project example
 * (examples/user-project), which run.sh compiles and tests against a minicluster: comparing the
 * two here keeps the README's code compiling and working.
 */
class ReadmeExampleTest {
  /** Paths relative to this module's directory, the tests' working directory. */
  private static final Path README = Path.of("..", "README.md");
  private static final Path APP =
      Path.of("..", "examples", "user-project", "src", "main", "java", "com", "example", "nyala",
          "App.java");
  private static final String MARKER = "<!-- client-example:";
  private static final String METHOD = "public static void run(String masters) {";

  @Test
  void readmeClientExampleIsAppRunBody() throws IOException {
    List<String> block = readmeBlock(Files.readAllLines(README));
    List<String> app = Files.readAllLines(APP);

    List<String> readmeImports = block.stream().filter(l -> l.startsWith("import ")).toList();
    List<String> readmeCode = withoutLeadingBlanks(
        block.stream().filter(l -> !l.startsWith("import ")).toList());
    assertThat(readmeImports).as("the README's imports").isNotEmpty();
    assertThat(app.stream().filter(l -> l.startsWith("import ")).toList())
        .as("App.java's imports").containsAll(readmeImports);
    assertThat(readmeCode).as("README's client example vs. the body of App.run in " + APP)
        .isEqualTo(methodBody(app));
  }

  /** The fenced java block right after the marker comment. */
  static List<String> readmeBlock(List<String> readme) {
    int i = 0;
    while (i < readme.size() && !readme.get(i).startsWith(MARKER)) {
      i++;
    }
    assertThat(i).as("README has the marker " + MARKER).isLessThan(readme.size());
    assertThat(readme.get(i + 1)).as("the line after the marker").isEqualTo("```java");
    List<String> block = new ArrayList<>();
    for (int j = i + 2; !readme.get(j).equals("```"); j++) {
      block.add(readme.get(j));
    }
    return block;
  }

  /** The lines between METHOD and its closing brace, dedented to the method's level. */
  static List<String> methodBody(List<String> source) {
    int start = -1;
    for (int i = 0; i < source.size(); i++) {
      if (source.get(i).strip().equals(METHOD)) {
        start = i;
        break;
      }
    }
    assertThat(start).as("App.java declares " + METHOD).isNotNegative();
    String indent = source.get(start).substring(0, source.get(start).indexOf(METHOD.charAt(0)));
    String bodyIndent = indent + "  ";
    List<String> body = new ArrayList<>();
    for (int i = start + 1; !source.get(i).equals(indent + "}"); i++) {
      String line = source.get(i);
      body.add(line.startsWith(bodyIndent) ? line.substring(bodyIndent.length()) : line.strip());
    }
    return body;
  }

  private static List<String> withoutLeadingBlanks(List<String> lines) {
    int i = 0;
    while (i < lines.size() && lines.get(i).isBlank()) {
      i++;
    }
    return lines.subList(i, lines.size());
  }
}
