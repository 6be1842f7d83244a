package io.nyala.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an application gets when it depends on {@code nyala-client}: gRPC, protobuf, slf4j-api,
 * the client-facing {@code nyala-common} and what gRPC cannot run without, and nothing else; no
 * Ratis, no logging backend and no logging configuration (docs/architecture.md, "Modules").
 * The build writes the resolved runtime dependencies to a file (maven-dependency-plugin's
 * {@code list} in client/pom.xml) before the tests run.
 */
@Timeout(30)
class RuntimeDependenciesTest {
  /** Artifacts allowed by exact {@code groupId:artifactId}. */
  private static final Set<String> ALLOWED = Set.of(
      "io.nyala:nyala-common",
      "com.google.protobuf:protobuf-java",
      "org.slf4j:slf4j-api",
      // What gRPC itself brings and needs at run time.
      "com.google.guava:guava",
      "com.google.guava:failureaccess",
      "com.google.guava:listenablefuture",
      "com.google.errorprone:error_prone_annotations",
      "com.google.j2objc:j2objc-annotations",
      "com.google.code.findbugs:jsr305",
      "com.google.code.gson:gson",
      "com.google.android:annotations",
      "com.google.api.grpc:proto-google-common-protos",
      "io.perfmark:perfmark-api",
      "org.codehaus.mojo:animal-sniffer-annotations",
      "org.jspecify:jspecify");

  /** Files that would configure or replace the application's own logging. */
  private static final List<String> LOGGING_FILES = List.of(
      "log4j2.xml", "log4j2-test.xml", "logback.xml", "logback-test.xml",
      "META-INF/services/org.slf4j.spi.SLF4JServiceProvider");

  private static List<Dependency> dependencies;

  @BeforeAll
  static void readResolvedDependencies() throws IOException {
    String file = System.getProperty("nyala.client.runtimeDependencies");
    assertThat(file).as("system property nyala.client.runtimeDependencies (set by the client's "
        + "pom; run this test through Maven)").isNotNull();
    dependencies = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of(file))) {
      Dependency d = Dependency.parse(line);
      if (d != null) {
        dependencies.add(d);
      }
    }
    assertThat(dependencies).as("dependencies listed in %s", file)
        .anyMatch(d -> d.key().equals("io.nyala:nyala-common"));
  }

  @Test
  void runtimeDependenciesAreOnlyGrpcProtobufAndSlf4jApi() {
    List<String> refused = dependencies.stream()
        .filter(d -> !ALLOWED.contains(d.key()) && !d.key().startsWith("io.grpc:grpc-"))
        .map(Dependency::toString)
        .toList();
    assertThat(refused).as("runtime dependencies of nyala-client outside the allowed set "
        + "(gRPC, protobuf, slf4j-api, nyala-common and gRPC's own needs)").isEmpty();
  }

  @Test
  void noLoggingBackendOrConfigurationReachesTheApplication() throws IOException {
    List<String> found = new ArrayList<>();
    List<Path> roots = new ArrayList<>();
    roots.add(Path.of(System.getProperty("nyala.client.classes")));
    dependencies.forEach(d -> roots.add(d.path()));
    for (Path root : roots) {
      for (String name : LOGGING_FILES) {
        if (contains(root, name)) {
          found.add(name + " in " + root);
        }
      }
    }
    assertThat(found).as("logging backends or configurations on nyala-client's runtime "
        + "classpath").isEmpty();
  }

  private static boolean contains(Path root, String name) throws IOException {
    if (Files.isDirectory(root)) {
      return Files.exists(root.resolve(name));
    }
    try (ZipFile jar = new ZipFile(root.toFile())) {
      return jar.getEntry(name) != null;
    }
  }

  /** One line of {@code dependency:list} with absolute file names. */
  private record Dependency(String key, String coordinates, Path path) {
    /**
     * Parses {@code group:artifact:type[:classifier]:version:scope:/path -- module ...};
     * returns null for the header and blank lines.
     */
    static Dependency parse(String line) {
      String s = line.strip();
      int module = s.indexOf(" -- ");
      if (module >= 0) {
        s = s.substring(0, module);
      }
      String[] f = s.split(":");
      if (f.length < 6) {
        return null;
      }
      String path = f[f.length - 1];
      String coordinates = s.substring(0, s.length() - path.length() - 1);
      return new Dependency(f[0] + ":" + f[1], coordinates, Path.of(path));
    }

    @Override
    public String toString() {
      return coordinates + " (" + path + ")";
    }
  }
}
