package io.nyala.minicluster;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a closed minicluster must not leave behind, checked at the end of
 * {@link MiniCluster#close()}: a thread of one of its servers, a server process, a listening
 * port (docs/architecture.md, "Testing with the minicluster").
 *
 * <p>A server's threads are those named {@code <server>-<pool>-N} (see
 * {@code LogContext.threadFactory}) and those whose name holds its uuid (Ratis names its threads
 * after the Raft peer id). Server names repeat across clusters ({@code ts-1}), so a name is only
 * checked while no other open cluster of this JVM has a server of that name; the uuid always
 * is. Processes are this JVM's descendants whose command line names the data root. Threads and
 * sockets get {@link #GRACE_MS} to end, since some stop asynchronously after their owner closes.
 */
final class LeakCheck {
  /** How long threads, processes and listeners may take to go away after the servers stop. */
  static final long GRACE_MS = 5_000;
  private static final long POLL_MS = 50;
  private static final int STACK_FRAMES = 8;
  /**
   * Threads that end by themselves after their server closed, by a part of their names; the check
   * does not wait for them.
   * <ul>
   *   <li>{@code -peer-calls-}: answers to calls in flight when the channels close arrive after
   *       that, so the tablet server never shuts this pool down and its threads end after 10 s
   *       idle (see {@code ServerPools.peerCallbacks}), longer than {@link #GRACE_MS}.
   *   <li>{@code -LeaderStateImpl}: the event processor of a Raft leader's division. Ratis stops
   *       it by a flag its queue poll sees only when the poll times out, about 1 s after the
   *       division closed; waiting for it cost every cluster whose master led about 1 s of
   *       close(). A leaked division still shows through its other threads (log worker, state
   *       machine updater).
   * </ul>
   */
  private static final List<String> SELF_ENDING_THREADS =
      List.of("-peer-calls-", "-LeaderStateImpl");
  /** Every cluster of this JVM not closed yet, to tell whose thread a shared name is. */
  private static final Set<LeakCheck> OPEN = ConcurrentHashMap.newKeySet();

  private final Path dataRoot;
  private final List<ServerNode> nodes;

  private LeakCheck(Path dataRoot, List<ServerNode> nodes) {
    this.dataRoot = dataRoot;
    this.nodes = List.copyOf(nodes);
  }

  /** Starts watching a new cluster's servers; {@link #verify()} once they are all stopped. */
  static LeakCheck register(Path dataRoot, List<ServerNode> nodes) {
    LeakCheck c = new LeakCheck(dataRoot, nodes);
    OPEN.add(c);
    return c;
  }

  /**
   * Waits up to {@link #GRACE_MS} for the stopped cluster's threads, processes and listeners to
   * go, then throws ILLEGAL_STATE naming every one left (thread names with their stack tops,
   * pids with their command, addresses).
   */
  void verify() {
    OPEN.remove(this);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(GRACE_MS);
    List<String> leaks = find();
    while (!leaks.isEmpty() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MS));
      leaks = find();
    }
    if (!leaks.isEmpty()) {
      throw NyalaException.illegalState("minicluster in %s leaked after close():%n  %s",
          dataRoot, String.join("\n  ", leaks));
    }
  }

  private List<String> find() {
    List<String> leaks = new ArrayList<>(threads());
    leaks.addAll(processes());
    leaks.addAll(listeners());
    return leaks;
  }

  private List<String> threads() {
    List<String> prefixes = new ArrayList<>();
    List<String> uuids = new ArrayList<>();
    for (ServerNode n : nodes) {
      if (!nameInOtherOpenCluster(n.name())) {
        prefixes.add(n.name() + "-");
      }
      String uuid = n.info().uuid();
      if (!uuid.isEmpty()) {
        uuids.add(uuid);
      }
    }
    List<String> out = new ArrayList<>();
    Thread.getAllStackTraces().forEach((t, stack) -> {
      String name = t.getName();
      boolean ours = prefixes.stream().anyMatch(name::startsWith)
          || uuids.stream().anyMatch(name::contains);
      boolean allowed = SELF_ENDING_THREADS.stream().anyMatch(name::contains);
      if (ours && !allowed && t.isAlive()) {
        out.add("thread '" + name + "' at " + stackTop(stack));
      }
    });
    return out;
  }

  private boolean nameInOtherOpenCluster(String name) {
    for (LeakCheck other : OPEN) {
      for (ServerNode n : other.nodes) {
        if (n.name().equals(name)) {
          return true;
        }
      }
    }
    return false;
  }

  private static String stackTop(StackTraceElement[] stack) {
    List<String> frames = new ArrayList<>();
    for (int i = 0; i < Math.min(STACK_FRAMES, stack.length); i++) {
      frames.add(stack[i].toString());
    }
    return frames.isEmpty() ? "(no stack)" : String.join(" <- ", frames);
  }

  private List<String> processes() {
    String root = dataRoot.toString();
    List<String> out = new ArrayList<>();
    ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).forEach(p -> {
      String cmd = p.info().commandLine().orElse("");
      if (cmd.contains(root)) {
        out.add("process " + p.pid() + " (" + abbreviate(cmd) + ")");
      }
    });
    return out;
  }

  private static String abbreviate(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }

  private List<String> listeners() {
    List<String> out = new ArrayList<>();
    for (ServerNode n : nodes) {
      for (HostPort hp : n.listenAddresses()) {
        if (accepts(hp)) {
          out.add("port " + hp + " of " + n.name() + " is still bound");
        }
      }
    }
    return out;
  }

  /**
   * Whether something listens on {@code hp}: it cannot be bound even with SO_REUSEADDR (which
   * ignores connections left in TIME_WAIT). Binding, unlike connecting, does not depend on the
   * listener accepting: a leaked one fills its backlog and then refuses.
   */
  private static boolean accepts(HostPort hp) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(hp.host(), hp.port()));
      return false;
    } catch (IOException e) {
      return true;
    }
  }
}
