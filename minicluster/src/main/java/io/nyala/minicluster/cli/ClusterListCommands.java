package io.nyala.minicluster.cli;

import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.HostPortPB;
import io.nyala.common.proto.ServerRegistrationPB;
import io.nyala.common.proto.master.GetMasterRegistrationResponsePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.master.TSInfoPB;
import io.nyala.common.rpc.Channels;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code nyala master list} and {@code nyala tserver list}: what the cluster's servers say. */
final class ClusterListCommands {
  private static final int DEFAULT_MASTER_PORT = 7051;
  private static final String ROW = "%-32s  %-11s  %-21s  %-21s  %s%n";

  private ClusterListCommands() {}

  /** Asks each master itself, so an unreachable one shows as such rather than vanishing. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = {
          "Lists the masters: uuid, role (LEADER, FOLLOWER or UNREACHABLE) and RPC, "
              + "Raft and HTTP addresses, asking each master of --masters."})
  static final class MasterListCommand implements Callable<Integer> {
    @Mixin MastersOption masters;

    @Option(names = "--timeout-ms", defaultValue = "3000",
        description = "How long to wait for each master (default 3000).")
    long timeoutMs;

    @Spec CommandSpec spec;

    private static final String UNREACHABLE = "UNREACHABLE";

    @Override
    public Integer call() {
      CliErrors.requireAtLeast(spec, "--timeout-ms", timeoutMs, 1);
      List<HostPort> addrs = HostPort.parseList(masters.get(), DEFAULT_MASTER_PORT);
      System.out.printf(ROW, "UUID", "ROLE", "RPC", "RAFT", "HTTP");
      int answered = 0;
      try (Channels channels = masters.newChannels()) {
        for (HostPort m : addrs) {
          Object[] row = row(channels, m);
          if (row != null && !UNREACHABLE.equals(row[1])) {
            answered++;
          }
          System.out.printf(ROW, row);
        }
      }
      if (answered == 0) {
        System.err.printf("error: no master answered at %s%n", masters.get());
        return 1;
      }
      return 0;
    }

    private Object[] row(Channels channels, HostPort m) {
      try {
        GetMasterRegistrationResponsePB r = MasterProbe.registration(channels, m, timeoutMs);
        ServerRegistrationPB reg = r.getRegistration();
        return new Object[] {reg.getUuid(), r.getRole().name(), m,
            address(reg.hasRaftAddress(), reg.getRaftAddress()),
            address(reg.hasHttpAddress(), reg.getHttpAddress())};
      } catch (RuntimeException e) {
        return new Object[] {"-", UNREACHABLE, m, "-",
            "(" + NyalaException.from(e).getMessage() + ")"};
      }
    }
  }

  /** Asks the leader master (found as a client finds it) for its view of the tablet servers. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = {
          "Lists the tablet servers as the leader master sees them: uuid, addresses, "
              + "live or dead with the seconds since the last heartbeat, tablets reported, "
              + "replicas placed, of those reported how many are awake and hibernated, and how "
              + "many of its data dirs failed (a server whose every dir failed takes no new "
              + "replica); the failed dirs are named below the table."})
  static final class TserverListCommand implements Callable<Integer> {
    private static final String TS_ROW =
        "%-32s  %-21s  %-21s  %-21s  %-5s  %8s  %7s  %8s  %7s  %10s  %11s%n";

    @Mixin MastersOption masters;

    @Option(names = "--timeout-ms", defaultValue = "10000",
        description = "How long to look for the leader and wait for its answer (default 10000).")
    long timeoutMs;

    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      CliErrors.requireAtLeast(spec, "--timeout-ms", timeoutMs, 1);
      ListTabletServersResponsePB resp;
      try (Transport transport = masters.newTransport()) {
        MasterProxy proxy = masters.masterProxy(transport, Math.min(timeoutMs, 3000));
        resp = proxy.call("ListTabletServers", ListTabletServersRequestPB.getDefaultInstance(),
            MasterServiceStub::listTabletServers, ListTabletServersResponsePB::getError,
            Deadline.after(timeoutMs)).join();
      } catch (RuntimeException e) {
        throw NyalaException.from(e);
      }
      System.out.printf(TS_ROW, "UUID", "RPC", "RAFT", "HTTP", "STATE", "LAST_HB", "TABLETS",
          "REPLICAS", "AWAKE", "HIBERNATED", "FAILED_DIRS");
      resp.getServersList().forEach(e -> System.out.print(row(e)));
      resp.getServersList().stream().filter(e -> e.getFailedDataDirsCount() > 0).forEach(e ->
          System.out.printf("%s: failed data dirs: %s%n", e.getTsInfo().getUuid(),
              String.join(", ", e.getFailedDataDirsList())));
      return 0;
    }
  }

  /**
   * One tablet server's row; AWAKE and HIBERNATED count its replicas as it last reported them
   * (a hibernated replica holds no Raft group open, see docs/dense-nodes.md); FAILED_DIRS is
   * "failed/all" of its data dirs, "-" when it reported none (docs/data-safety.md, "Disk
   * faults").
   */
  static String row(ListTabletServersResponsePB.Entry e) {
    TSInfoPB ts = e.getTsInfo();
    return String.format(TserverListCommand.TS_ROW, ts.getUuid(),
        address(ts.hasRpcAddress(), ts.getRpcAddress()),
        address(ts.hasRaftAddress(), ts.getRaftAddress()),
        address(ts.hasHttpAddress(), ts.getHttpAddress()),
        e.getLive() ? "live" : "dead",
        String.format("%.1fs", e.getMillisSinceHeartbeat() / 1000.0),
        e.getNumLiveTablets(), e.getNumReplicas(), e.getNumAwakeReplicas(),
        e.getNumHibernatedReplicas(), e.getNumDataDirs() == 0 ? "-"
            : e.getFailedDataDirsCount() + "/" + e.getNumDataDirs());
  }

  private static String address(boolean present, HostPortPB hp) {
    return present ? HostPort.fromPb(hp).toString() : "-";
  }
}
