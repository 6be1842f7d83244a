package io.nyala.minicluster;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.GetMasterRegistrationRequestPB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Waits for an external server process to answer RPCs, or reports why it died. */
final class ServerReadiness {
  private static final long TIMEOUT_MS = 60_000;

  private ServerReadiness() {}

  static void awaitRpc(String name, ServerRole role, HostPort rpc, ExternalProcess p, Path log) {
    ManagedChannel ch = NettyChannelBuilder.forAddress(rpc.host(), rpc.port()).usePlaintext()
        .build();
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS);
      while (System.nanoTime() < deadline) {
        if (!p.isAlive()) {
          throw NyalaException.illegalState("%s exited during start; last lines of %s:%n%s",
              name, log, tail(log));
        }
        try {
          if (role == ServerRole.MASTER) {
            MasterServiceGrpc.newBlockingStub(ch).withDeadlineAfter(1, TimeUnit.SECONDS)
                .getMasterRegistration(GetMasterRegistrationRequestPB.getDefaultInstance());
          } else {
            TabletServerServiceGrpc.newBlockingStub(ch).withDeadlineAfter(1, TimeUnit.SECONDS)
                .listTablets(ListTabletsRequestPB.getDefaultInstance());
          }
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

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
