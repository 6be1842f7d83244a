package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.client.ClientConfig;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.NyalaCluster;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application that logs with Logback and depends on {@code nyala-client} alone gets no
 * second SLF4J provider and none of our logging configuration (docs/architecture.md,
 * "Modules"). A child JVM runs {@link LogbackClientApp} on exactly the client's runtime
 * classpath plus logback-classic (both resolved by the build, itests/pom.xml) against this
 * JVM's minicluster: it creates a table, writes and scans, and must log through Logback only.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@NyalaCluster(masters = 1, tservers = 1)
class LogbackClientIT {
  @TempDir
  Path dir;

  @Test
  void anApplicationLoggingWithLogbackGetsOneProviderAndItsOwnConfiguration(MiniCluster cluster)
      throws Exception {
    Path logFile = dir.resolve("app.log");
    Path config = dir.resolve("logback.xml");
    Files.writeString(config, """
        <configuration>
          <appender name="FILE" class="ch.qos.logback.core.FileAppender">
            <file>%s</file>
            <encoder><pattern>LOGBACK %%level %%logger %%msg%%n</pattern></encoder>
          </appender>
          <root level="INFO"><appender-ref ref="FILE"/></root>
        </configuration>
        """.formatted(logFile));
    String classpath = childClasspath();
    assertThat(classpath).doesNotContain("log4j", "ratis", "nyala-server-common", "picocli",
        "bcprov").contains("logback-classic", "nyala-client");

    Path out = dir.resolve("stdout.txt");
    Path err = dir.resolve("stderr.txt");
    ProcessBuilder pb = new ProcessBuilder(javaBin(), "-cp", classpath,
        "-Dlogback.configurationFile=" + config, LogbackClientApp.class.getName(),
        cluster.masterAddresses())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    // The cluster's CA and user, as an application of a TLS cluster gets them.
    pb.environment().put(ClientConfig.ENV, cluster.clientConfigFile().toString());
    Process app = pb.start();
    app.getOutputStream().close();
    boolean exited = app.waitFor(2, TimeUnit.MINUTES);
    if (!exited) {
      app.destroyForcibly().waitFor();
    }
    String stdout = Files.readString(out);
    String stderr = Files.readString(err);
    assertThat(exited).as("client JVM exited; stderr:%n%s", stderr).isTrue();
    assertThat(app.exitValue()).as("client JVM exit code; stderr:%n%s", stderr).isZero();
    assertThat(stdout).contains("rows=10");
    assertThat(stderr).as("the client JVM's stderr")
        .doesNotContain("SLF4J").doesNotContainIgnoringCase("log4j");
    assertThat(Files.readString(logFile, StandardCharsets.UTF_8))
        .contains("LOGBACK INFO " + LogbackClientApp.class.getName()
            + " logger factory ch.qos.logback.classic.LoggerContext")
        .contains("scanned 10 rows");
  }

  /** The client's runtime closure and logback-classic, then this module's test classes. */
  private static String childClasspath() throws Exception {
    String file = System.getProperty("nyala.itests.clientClasspath");
    assertThat(file).as("system property nyala.itests.clientClasspath (set by itests/pom.xml; "
        + "run this test through Maven)").isNotNull();
    List<String> entries = new ArrayList<>();
    entries.add(Files.readString(Path.of(file)).strip());
    entries.add(Path.of(LogbackClientApp.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString());
    return String.join(File.pathSeparator, entries);
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
