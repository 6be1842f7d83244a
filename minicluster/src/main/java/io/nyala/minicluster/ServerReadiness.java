package io.nyala.minicluster;

import io.grpc.ManagedChannel;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Waits for an external server process to answer RPCs, or reports why it died. */
final class ServerReadiness {
  private static final long TIMEOUT_MS = 60_000;
  /** A listening loopback port accepts at once, even from a busy process (the kernel does). */
  private static final int CONNECT_TIMEOUT_MS = 2_000;
  /** What {@code ServerMain} prints before the reason a server could not start. */
  private static final String FAILED_TO_START = " failed to start: ";

  private ServerReadiness() {}

  /**
   * Refuses to start {@code name} where a server already listens: a readiness check would
   * take that server's answer for the new one's (which then fails on the data dir's lock
   * and exits), and report a cluster up whose processes are gone. A second
   * {@code local-cluster} on a data dir still in use did exactly that. Decided by a TCP connect,
   * not by an RPC: on a loaded box a running server's first TLS handshake can take longer than
   * any short RPC deadline, and a slow answer was once taken for "nothing there".
   */
  static void requireUnused(String name, ServerRole role, HostPort rpc, Path dataDir) {
    if (!listening(rpc)) {
      return;
    }
    throw NyalaException.illegalState("cannot start %s: a server already answers on %s, where "
        + "this %s would listen; another cluster (or a server left running) uses that address, "
        + "and probably the data dir %s: stop it first", name, rpc,
        role == ServerRole.MASTER ? "master" : "tablet server", dataDir);
  }

  /** Whether anything accepts TCP connections on {@code addr} (refused: nothing listens). */
  private static boolean listening(HostPort addr) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(addr.host(), addr.port()), CONNECT_TIMEOUT_MS);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void probe(ManagedChannel ch, ServerRole role, long timeoutMs) {
    if (role == ServerRole.MASTER) {
      MasterServiceGrpc.newBlockingStub(ch).withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
          .getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance());
    } else {
      TabletServerServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
          .listTablets(ListTabletsRequestPB.getDefaultInstance());
    }
  }

  static void awaitRpc(String name, ServerRole role, HostPort rpc, ClusterTls tls,
      ExternalProcess p, Path log) {
    ManagedChannel ch = tls.channel(rpc);
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
      while (System.nanoTime() < deadline) {
        if (!p.isAlive()) {
          // Its output reaches the log through a copying thread: read it once that is done,
          // else a loaded box shows an empty log instead of the reason the server printed.
          p.awaitOutputCopied();
          throw NyalaException.illegalState("%s exited during start: %s (log: %s)", name,
              reason(log), log);
        }
        // Nothing listens yet: gRPC would fail the connect and then back off for 1 s, 1.6 s,
        // 2.6 s... before trying again, so a server ready just after a failed try was seen
        // seconds late. The RPC is tried only once the port accepts, with any backoff cut short.
        if (!listening(rpc)) {
          sleep();
          continue;
        }
        ch.resetConnectBackoff();
        try {
          probe(ch, role, 1000);
          return;
        } catch (RuntimeException notYet) {
          sleep();
        }
      }
      throw NyalaException.timedOut("%s did not answer on %s within %d ms; see %s", name, rpc,
          TIMEOUT_MS, log);
    } finally {
      ch.shutdownNow();
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(50); // polling another process; there is no event to wait on
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.illegalState("interrupted waiting for a server to start");
    }
  }

  /**
   * Why a server process ended during start, on one line: the reason its main printed
   * ({@code ServerMain}'s "failed to start" line), else its last line of output.
   */
  static String reason(Path log) {
    List<String> lines;
    try {
      lines = Files.readAllLines(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
    String last = "(no output)";
    for (String line : lines) {
      int at = line.indexOf(FAILED_TO_START);
      if (at >= 0) {
        return line.substring(at + FAILED_TO_START.length());
      }
      if (!line.isBlank()) {
        last = line.strip();
      }
    }
    return "no reason printed; last output: " + last;
  }
}
