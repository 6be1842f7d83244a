package io.nyala.minicluster.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.GetMasterRegistrationResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.ScannerKeepAliveRequestPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.common.rpc.UnaryObserver;
import io.nyala.master.MasterServer;
import io.nyala.tserver.TabletServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The first contact of a cluster command: asks every address of {@code --masters} at once for
 * its master registration and returns as soon as one answers. When none does, it fails with one
 * line that says what the addresses are instead: nothing listening, a tablet server's RPC port,
 * or a web UI (the default ports are {@link MasterServer#DEFAULT_RPC_PORT} and
 * {@link MasterServer#DEFAULT_WEB_PORT} for a master, {@link TabletServer#DEFAULT_RPC_PORT} and
 * {@link TabletServer#DEFAULT_WEB_PORT} for a tablet server). Without it a wrong address costs
 * a client's whole operation timeout (30 s) and ends in a gRPC status such as "Method not
 * found".
 *
 * <p>Only the first contact is bounded by the probe's timeout; the command's own operations keep
 * theirs (a table creation may legitimately take long).
 */
final class MasterProbe {
  /** How long the probe waits for a first answer unless {@code --connect-timeout-ms} says. */
  static final long DEFAULT_TIMEOUT_MS = 5000;
  /** Bounds each follow-up question (tablet server? web server?) about a refusing address. */
  private static final long IDENTIFY_TIMEOUT_MS = 2000;
  /** The reason given when a server closed a plaintext connection: it requires TLS. */
  private static final String PLAINTEXT_REFUSED = "the server closed the plaintext connection: "
      + "it requires TLS, so the client needs the cluster's CA";

  private MasterProbe() {}

  /**
   * Asks one master for its registration.
   *
   * @throws StatusRuntimeException when the call fails (unreachable, not a master, timeout)
   * @throws NyalaException when the master answers with an error
   */
  static GetMasterRegistrationResponsePB registration(Channels channels, HostPort master,
      long timeoutMs) {
    GetMasterRegistrationResponsePB r = MasterServiceGrpc.newBlockingStub(channels.get(master))
        .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
        .getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance());
    if (NyalaException.isError(r.getError())) {
      throw NyalaException.fromPb(r.getError());
    }
    return r;
  }

  /**
   * Returns once some master of {@code masters} answers; a master that answers with an error
   * (say, still loading its catalog) counts, since the command's own calls retry that.
   *
   * @param masters comma-separated master addresses, as {@link MastersOption#get()} gives them
   * @param timeoutMs how long to wait for a first answer
   * @param trustedCaFile the CA to trust over TLS, or null for plaintext
   * @throws NyalaException with a one-line message naming each address and what it is
   */
  static void check(String masters, long timeoutMs, Path trustedCaFile) {
    List<HostPort> addrs = HostPort.parseList(masters, MasterServer.DEFAULT_RPC_PORT);
    if (addrs.isEmpty()) {
      throw NyalaException.invalidArgument("no master address in '%s'", masters);
    }
    try (Channels channels = MastersOption.newChannels(trustedCaFile)) {
      Map<HostPort, CompletableFuture<GetMasterRegistrationResponsePB>> asks =
          new LinkedHashMap<>();
      CompletableFuture<HostPort> firstAnswer = new CompletableFuture<>();
      for (HostPort m : addrs) {
        CompletableFuture<GetMasterRegistrationResponsePB> f = ask(channels, m, timeoutMs);
        f.thenRun(() -> firstAnswer.complete(m));
        asks.put(m, f);
      }
      CompletableFuture<Void> allDone =
          CompletableFuture.allOf(asks.values().toArray(CompletableFuture[]::new));
      CompletableFuture.anyOf(firstAnswer, allDone).exceptionally(e -> null).join();
      // Asked again: when the last answer ends the wait, firstAnswer may not be set yet.
      for (CompletableFuture<GetMasterRegistrationResponsePB> f : asks.values()) {
        if (f.isDone() && !f.isCompletedExceptionally()) {
          return;
        }
      }
      List<String> wrongKind = new ArrayList<>();
      List<HostPort> silent = new ArrayList<>();
      String reason = null;
      for (Map.Entry<HostPort, CompletableFuture<GetMasterRegistrationResponsePB>> e
          : asks.entrySet()) {
        Status status = Status.fromThrowable(e.getValue().handle((r, ex) -> ex).join());
        String kind = identify(channels, e.getKey(), status);
        if (kind != null) {
          wrongKind.add(kind);
        } else {
          silent.add(e.getKey());
          reason = reason == null ? reason(status, trustedCaFile == null) : reason;
        }
      }
      if (!silent.isEmpty()) {
        boolean tlsHint = reason != null && reason.equals(PLAINTEXT_REFUSED);
        wrongKind.add(String.format("no master answered at %s within %s%s — %s",
            HostPort.toString(silent), seconds(timeoutMs),
            (addrs.size() == 1 || tlsHint) && reason != null ? " (" + reason + ")" : "",
            tlsHint ? "pass --client-config or set " + MastersOption.CONFIG_ENV
                + " (bin/nyala local-cluster prints the line to export)"
                : "is bin/nyala local-cluster running? (set --masters or " + MastersOption.ENV
                + ")"));
      }
      throw NyalaException.unavailable("%s", String.join("; ", wrongKind));
    }
  }

  private static CompletableFuture<GetMasterRegistrationResponsePB> ask(Channels channels,
      HostPort m, long timeoutMs) {
    CompletableFuture<GetMasterRegistrationResponsePB> f = new CompletableFuture<>();
    MasterServiceGrpc.newStub(channels.get(m))
        .withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS)
        .getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance(),
            UnaryObserver.completing(f, "master " + m));
    return f;
  }

  /**
   * What {@code addr} is when it is something other than a master that answered, as the line to
   * print; null when it did not answer at all (or we cannot tell).
   */
  private static String identify(Channels channels, HostPort addr, Status status) {
    Status.Code code = status.getCode();
    if (code == Status.Code.DEADLINE_EXCEEDED || refused(status)) {
      return null; // nothing answered: a web GET would only wait as long again
    }
    if (code == Status.Code.UNIMPLEMENTED && isTabletServer(channels, addr)) {
      return String.format("%s is a tablet server's RPC address, not a master's (masters listen "
          + "on %d by default)", addr, MasterServer.DEFAULT_RPC_PORT);
    }
    if (isWebServer(addr)) {
      return String.format("%s is an HTTP (web UI) address, not a master's RPC address "
          + "(masters serve RPC on %d by default, their web UI on %d)", addr,
          MasterServer.DEFAULT_RPC_PORT, MasterServer.DEFAULT_WEB_PORT);
    }
    if (code == Status.Code.UNIMPLEMENTED) {
      return String.format("%s answers gRPC but is not a Nyala master (no master service there; "
          + "masters listen on %d by default)", addr, MasterServer.DEFAULT_RPC_PORT);
    }
    return null;
  }

  /**
   * A tablet server answers a keep-alive for an unknown scanner (with an error, but answers);
   * one that requires authentication refuses it, which also shows the service is there.
   */
  private static boolean isTabletServer(Channels channels, HostPort addr) {
    try {
      TabletServerServiceGrpc.newBlockingStub(channels.get(addr))
          .withDeadlineAfter(IDENTIFY_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .scannerKeepAlive(ScannerKeepAliveRequestPB.getDefaultInstance());
      return true;
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      return code == Status.Code.PERMISSION_DENIED || code == Status.Code.UNAUTHENTICATED;
    }
  }

  /** gRPC fails against an HTTP/1.1 server; a plain GET of {@code /} tells that it is one. */
  private static boolean isWebServer(HostPort addr) {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofMillis(IDENTIFY_TIMEOUT_MS)).build();
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://" + addr + "/"))
        .timeout(Duration.ofMillis(IDENTIFY_TIMEOUT_MS)).GET().build();
    try {
      http.send(get, HttpResponse.BodyHandlers.discarding());
      return true;
    } catch (IOException | IllegalArgumentException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static boolean refused(Status status) {
    for (Throwable t = status.getCause(); t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Why a single address did not answer, in a few words; null when gRPC does not say. A
   * plaintext caller's connection that the server closed or reset before any answer is what a
   * server requiring TLS does to it: {@link #PLAINTEXT_REFUSED}.
   */
  private static String reason(Status status, boolean plaintext) {
    if (plaintext && status.getCode() == Status.Code.UNAVAILABLE && (closedEarly(status)
        || resetByPeer(status))) {
      return PLAINTEXT_REFUSED;
    }
    for (Throwable t = status.getCause(); t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "connection refused";
      }
      if (t instanceof UnknownHostException) {
        return "unknown host";
      }
    }
    String d = status.getDescription();
    return d != null && d.startsWith("Unable to resolve host") ? "unknown host" : null;
  }

  private static boolean closedEarly(Status s) {
    return s.getDescription() != null
        && s.getDescription().startsWith("Network closed for unknown reason");
  }

  private static boolean resetByPeer(Status s) {
    for (Throwable t = s.getCause(); t != null; t = t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains("Connection reset by peer")) {
        return true;
      }
    }
    return false;
  }

  private static String seconds(long ms) {
    return ms % 1000 == 0 ? (ms / 1000) + " s" : String.format("%.1f s", ms / 1000.0);
  }
}
