package io.nyala.minicluster;

import io.nyala.common.NyalaException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A server JVM started by the minicluster: output to a per-server log file with every line
 * prefixed by the server's name, signals for kill/stop/pause/resume, and a JVM-wide shutdown
 * hook that kills every child still running.
 */
final class ExternalProcess {
  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
  /** Clean stops that shutdown hooks run, which the reaper lets finish first. */
  private static final List<Future<?>> CLEAN_STOPS = new CopyOnWriteArrayList<>();
  /**
   * How long the reaper waits for those clean stops: a stop gives each server 30 s before a
   * SIGKILL, tablet servers together and then masters, and then copies their last output.
   */
  private static final long REAPER_WAIT_MS = 90_000;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ExternalProcess::reap,
        "minicluster-child-reaper"));
  }

  /**
   * The JVM's last resort against orphaned servers: SIGKILLs every child still running. The
   * JVM runs shutdown hooks all at once, so a hook that stops a cluster cleanly (see
   * {@link #reaperWaitsFor}) is waited for first; without that wait the reaper killed the
   * servers of a stopping {@code local-cluster --processes} under its clean stop.
   */
  private static void reap() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REAPER_WAIT_MS);
    for (Future<?> stop : CLEAN_STOPS) {
      try {
        stop.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException | TimeoutException | CancellationException e) {
        // It failed or hangs: what it left is killed below.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    for (Process p : LIVE) {
      p.destroyForcibly();
    }
  }

  /**
   * Makes the reaper wait (up to 90 s) for {@code cleanStop}, which a shutdown hook completes
   * once it has stopped its cluster, before it kills what is left.
   */
  static void reaperWaitsFor(Future<?> cleanStop) {
    CLEAN_STOPS.add(cleanStop);
  }

  /** How long a stop waits for the copy of an ended process's last output into its log. */
  private static final long PUMP_DRAIN_MS = 30_000;

  private final String name;
  private final Process process;
  private final Thread pump;

  private ExternalProcess(String name, Process process, Thread pump) {
    this.name = name;
    this.process = process;
    this.pump = pump;
  }

  static ExternalProcess start(String name, String role, List<String> flags, Path logFile,
      List<String> jvmOptions) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-Dnyala.server.name=" + name);
    cmd.add("-Djava.util.logging.manager=org.apache.logging.log4j.jul.LogManager");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ExternalServerMain.class.getName());
    cmd.add(role);
    cmd.add(String.valueOf(ProcessHandle.current().pid()));
    cmd.addAll(flags);
    Process p;
    try {
      Files.createDirectories(logFile.getParent());
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw NyalaException.ioError(name + ": cannot start process: " + e.getMessage(), e);
    }
    LIVE.add(p);
    p.onExit().thenRun(() -> LIVE.remove(p));
    Thread pump = new Thread(() -> pump(name, p.getInputStream(), logFile), name + "-output");
    pump.setDaemon(true);
    pump.start();
    return new ExternalProcess(name, p, pump);
  }

  private static void pump(String name, InputStream in, Path logFile) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
         PrintStream out = new PrintStream(Files.newOutputStream(logFile,
             StandardOpenOption.CREATE, StandardOpenOption.APPEND), true, StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) {
        out.println("[" + name + "] " + line);
      }
    } catch (IOException e) {
      // Process#destroyForcibly (the reaper at JVM exit) closes the stream under the reader: that
      // is the end of its output, not an error worth a stack trace on the operator's console.
      if (!"Stream closed".equals(e.getMessage())) {
        System.err.println(name + ": output no longer copied to " + logFile + ": " + e);
      }
    }
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Its exit status once it has ended, else empty. */
  OptionalInt exitStatus() {
    return process.isAlive() ? OptionalInt.empty()
        : OptionalInt.of(process.exitValue());
  }

  /** SIGKILL, and wait for the process to be gone and its output copied. */
  void kill() {
    process.toHandle().destroyForcibly();
    if (waitFor(30)) {
      awaitOutputCopied();
    }
  }

  /**
   * SIGTERM (the server's shutdown hook stops it cleanly); SIGKILL if it hangs. Returns once the
   * process is gone and its last output is in its log file.
   */
  void stop() {
    resume(); // a stopped process cannot handle SIGTERM
    // The handle's destroy only signals: Process#destroy would also close the pipe the output
    // thread reads, and every line the server logs while it stops would be lost.
    process.toHandle().destroy();
    if (!waitFor(30)) {
      kill();
      return;
    }
    awaitOutputCopied();
  }

  /**
   * Waits for the output thread to reach the end of an ended process's output: on a loaded box
   * it can take seconds to copy the last lines, and a cluster's leak check counts the thread.
   */
  void awaitOutputCopied() {
    try {
      pump.join(PUMP_DRAIN_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  void pause() {
    signal("STOP");
  }

  void resume() {
    signal("CONT");
  }

  private void signal(String sig) {
    if (!process.isAlive()) {
      return;
    }
    try {
      Process k = new ProcessBuilder("kill", "-" + sig, String.valueOf(process.pid()))
          .redirectErrorStream(true).start();
      if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
        if (!process.isAlive()) {
          return; // it ended meanwhile: nothing left to signal
        }
        throw NyalaException.illegalState("%s: kill -%s %d failed", name, sig, process.pid());
      }
    } catch (IOException e) {
      throw NyalaException.ioError(name + ": cannot send SIG" + sig + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.illegalState("interrupted signalling %s", name);
    }
  }

  private boolean waitFor(int seconds) {
    try {
      return process.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
