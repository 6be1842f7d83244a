package io.nyala.itests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new user's first session, from the README alone: {@code bin/nyala local-cluster} as a real
 * process (TLS and authentication on, as by default), the README's client example compiled from
 * the README's own text and run against it in a JVM of its own with the exported client config,
 * the README's quickstart commands run line by line as printed (with the address and client
 * config the cluster printed), a command without the client config refused with the hint to
 * pass it, then Ctrl-C's SIGINT, after which the terminal must show a few calm lines and no
 * stack trace.
 *
 * <p>{@code NYALA_SKIP_BUILD=1}: this build made the distribution {@code bin/nyala} runs; the
 * launcher must not start a second Maven build inside the test.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class QuickstartIT {
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
  private static final Path README = ROOT.resolve("README.md");
  private static final Path NYALA = ROOT.resolve("bin").resolve("nyala");

  @TempDir
  Path home;

  /** Every line the local-cluster process printed, stdout and stderr together, in order. */
  private final List<String> terminal = Collections.synchronizedList(new ArrayList<>());
  /** Reads {@link #terminal} until the process's output ends. */
  private Thread reader;
  /** The export line local-cluster printed. */
  private volatile String exportLine;
  /** The client config file that export line names. */
  private String config;

  @Test
  void theReadmeFirstSessionWorksAsPrinted() throws Exception {
    ProcessBuilder lc = new ProcessBuilder(NYALA.toString(), "local-cluster")
        .directory(home.toFile()).redirectErrorStream(true);
    lc.environment().put("NYALA_SKIP_BUILD", "1");
    Process cluster = lc.start();
    cluster.getOutputStream().close();
    try {
      String masters = awaitExportLine(cluster);
      config = exportLine.substring(exportLine.indexOf(" NYALA_CLIENT_CONFIG=")
          + " NYALA_CLIENT_CONFIG=".length());
      assertThat(Path.of(config)).as("the client config local-cluster wrote").isRegularFile();
      int started = terminal.size();
      System.out.println("QuickstartIT: local-cluster printed:\n" + String.join("\n", terminal));
      assertThat(started).as("lines local-cluster printed until it was up").isLessThan(15);
      assertThat(String.join("\n", terminal)).doesNotContain("\tat ").doesNotContain("WARN");

      runReadmeClient(masters);
      for (String line : readmeBlock("<!-- quickstart-commands", "```sh")) {
        if (line.startsWith("export NYALA_MASTERS=")) {
          if (masters.equals("127.0.0.1:7051")) {
            assertThat(line.replace("$PWD", home.toString()))
                .as("the README's export line is what local-cluster printed")
                .isEqualTo(exportLine);
          }
          continue;
        }
        checkCommand(line, shell(line, masters));
      }
      String count = shell("bin/nyala table count people", masters);
      assertThat(lastLine(count)).as("rows the README's client example wrote").isEqualTo("10");
      String plain = run("bin/nyala table list", masters, null);
      assertThat(plain).as("a command without the client config").contains("requires TLS")
          .contains("NYALA_CLIENT_CONFIG").doesNotContain("\tat ");

      int before = terminal.size();
      String signal = ignoresSigint(cluster.pid()) ? "-TERM" : "-INT";
      if (signal.equals("-TERM")) {
        // Started from a background job, whose children ignore SIGINT: a JVM then installs no
        // handler for it, as for a terminal's Ctrl-C under nohup. SIGTERM takes the same path.
        System.out.println("QuickstartIT: SIGINT is ignored in this process tree; sending TERM");
      }
      assertThat(new ProcessBuilder("kill", signal, Long.toString(cluster.pid())).start()
          .waitFor()).isZero();
      boolean exited = cluster.waitFor(60, TimeUnit.SECONDS);
      if (!exited) { // what it waits on: the evidence a hung stop leaves
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process dump = new ProcessBuilder(jcmd, Long.toString(cluster.pid()), "Thread.print")
            .redirectErrorStream(true).start();
        System.out.println("QuickstartIT: local-cluster still runs 60 s after SIGINT; threads:\n"
            + new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      }
      assertThat(exited).as("local-cluster exits on SIGINT").isTrue();
      reader.join(10_000); // the terminal's last lines, up to its end of file
      List<String> stop = List.copyOf(terminal.subList(before, terminal.size()));
      System.out.println("QuickstartIT: after Ctrl-C:\n" + String.join("\n", stop));
      assertThat(stop).as("lines printed after Ctrl-C").hasSizeLessThan(15)
          .noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"))
          .anyMatch(l -> l.startsWith("local cluster stopped"));
    } finally {
      cluster.destroyForcibly();
      cluster.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Whether {@code pid} ignores SIGINT: bit 2 of the SigIgn mask in /proc/PID/status. */
  private static boolean ignoresSigint(long pid) throws Exception {
    Path status = Path.of("/proc", Long.toString(pid), "status");
    if (!Files.exists(status)) {
      return false; // no /proc: assume the default disposition
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & 0x2) != 0;
      }
    }
    return false;
  }

  private String awaitExportLine(Process p) throws Exception {
    BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String[] masters = new String[1];
    Object found = new Object();
    reader = new Thread(() -> {
      try {
        for (String line; (line = out.readLine()) != null; ) {
          terminal.add(line);
          if (line.startsWith("export NYALA_MASTERS=")) {
            synchronized (found) {
              exportLine = line;
              masters[0] = line.substring("export NYALA_MASTERS=".length()).split(" ")[0];
              found.notifyAll();
            }
          }
        }
      } catch (IOException e) {
        terminal.add("(reading the terminal failed: " + e + ")");
      }
    }, "quickstart-terminal");
    reader.setDaemon(true);
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    synchronized (found) {
      while (masters[0] == null && p.isAlive() && System.nanoTime() < deadline) {
        found.wait(200);
      }
    }
    assertThat(masters[0]).as("local-cluster's export line; it printed: %s", terminal)
        .isNotNull();
    // The Ctrl-C hint comes right after the export line.
    await("local-cluster's Ctrl-C hint").atMost(Duration.ofSeconds(30))
        .until(() -> !p.isAlive() || terminal.stream().anyMatch(l -> l.startsWith("Ctrl-C")));
    return masters[0];
  }

  /**
   * Runs a README command line with bash in the user's directory, as a terminal would, with the
   * exported variables; it must succeed.
   */
  private String shell(String line, String masters) throws Exception {
    String out = run(line, masters, config);
    assertThat(out).as(line).startsWith("exit 0\n").doesNotContain("\tat ");
    return out.substring("exit 0\n".length());
  }

  /** Runs a command line as {@link #shell} does; returns "exit N" and what it printed. */
  private String run(String line, String masters, String clientConfig) throws Exception {
    assertThat(line).startsWith("bin/nyala ");
    String command = NYALA + line.substring("bin/nyala".length());
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(home.toFile())
        .redirectErrorStream(true);
    Map<String, String> env = pb.environment();
    env.put("NYALA_MASTERS", masters);
    env.remove("NYALA_CLIENT_CONFIG");
    if (clientConfig != null) {
      env.put("NYALA_CLIENT_CONFIG", clientConfig);
    }
    env.put("NYALA_SKIP_BUILD", "1");
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("%s finishes", line).isTrue();
    System.out.println("QuickstartIT: $ " + line + "\n" + out);
    return "exit " + p.exitValue() + "\n" + out;
  }

  private static void checkCommand(String line, String out) {
    if (line.contains(" table create ")) {
      assertThat(out).contains("created table 'pets'");
    } else if (line.contains(" table describe ")) {
      assertThat(out).contains("pets").contains("id").contains("LEADER");
    } else if (line.contains(" perf loadgen ")) {
      assertThat(out).contains("20000 rows written").contains("0 failed");
    } else if (line.contains(" table count ")) {
      assertThat(lastLine(out)).isEqualTo("20000");
    } else if (line.contains(" table scan ")) {
      assertThat(out.strip().lines().filter(l -> !l.matches("\\d+ rows?")).count())
          .as("header and 5 rows: %s", out).isEqualTo(6);
      assertThat(lastLine(out)).isEqualTo("5 rows");
    } else if (line.contains(" table delete ")) {
      assertThat(out).contains("deleted table 'pets'");
    }
  }

  /**
   * Compiles the README's client example (its imports, then its body inside a method taking
   * {@code masters}) and runs it against the local cluster.
   */
  private void runReadmeClient(String masters) throws Exception {
    List<String> block = readmeBlock("<!-- client-example", "```java");
    StringBuilder src = new StringBuilder();
    List<String> body = new ArrayList<>();
    for (String l : block) {
      if (l.startsWith("import ")) {
        src.append(l).append('\n');
      } else {
        body.add(l);
      }
    }
    src.append("public class ReadmeClient {\n")
        .append("  public static void main(String[] args) throws Exception {\n")
        .append("    run(args[0]);\n")
        .append("  }\n\n")
        .append("  public static void run(String masters) throws Exception {\n");
    body.forEach(l -> src.append("    ").append(l).append('\n'));
    src.append("  }\n}\n");
    Path dir = Files.createDirectories(home.resolve("readme-client"));
    Path file = dir.resolve("ReadmeClient.java");
    Files.writeString(file, src);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac).as("a JDK's compiler").isNotNull();
    int rc = javac.run(null, null, null, "-cp", System.getProperty("java.class.path"),
        "-d", dir.toString(), file.toString());
    assertThat(rc).as("the README's client example compiles:%n%s", src).isZero();
    // A JVM of its own, as a user's program, with the export line's variables.
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp",
        dir + File.pathSeparator + System.getProperty("java.class.path"), "ReadmeClient", masters)
        .redirectErrorStream(true);
    pb.environment().put("NYALA_CLIENT_CONFIG", config);
    Process p = pb.start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("the README's client finishes").isTrue();
    System.out.println("QuickstartIT: the README's client printed:\n" + out);
    assertThat(p.exitValue()).as("the README's client's exit status; it printed:%n%s", out)
        .isZero();
    assertThat(out).contains("10 rows written");
  }

  /** The lines of the fenced block that opens with {@code fence} after the marker line. */
  private static List<String> readmeBlock(String marker, String fence) throws IOException {
    List<String> lines = Files.readAllLines(README);
    int i = 0;
    while (i < lines.size() && !lines.get(i).startsWith(marker)) {
      i++;
    }
    assertThat(i).as("README marker %s", marker).isLessThan(lines.size());
    assertThat(lines.get(i + 1)).isEqualTo(fence);
    List<String> out = new ArrayList<>();
    for (int j = i + 2; !lines.get(j).equals("```"); j++) {
      if (!lines.get(j).isBlank()) {
        out.add(lines.get(j));
      }
    }
    return out;
  }

  private static String lastLine(String s) {
    String[] lines = s.strip().split("\n");
    return lines[lines.length - 1].strip();
  }
}
