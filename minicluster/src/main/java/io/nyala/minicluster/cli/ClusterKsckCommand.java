package io.nyala.minicluster.cli;

import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Deadline;
import io.nyala.client.rpc.Transport;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.ListTablesRequestPB;
import io.nyala.common.proto.master.ListTablesResponsePB;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc.MasterServiceStub;
import io.nyala.common.proto.master.TableIdentifierPB;
import io.nyala.common.proto.master.TabletLocationsPB;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nyala cluster ksck}: every tablet with each replica's state as its tablet server reports
 * it (RUNNING, BOOTSTRAPPING, FAILED with its error, or why none was heard), the replicas the
 * master places and any others a tserver still hosts. Exits 1 when a tablet is not healthy:
 * fewer placed replicas than the table asks for, a replica not RUNNING, or no leader
 * (docs/data-safety.md, "Damage is contained").
 */
@Command(name = "ksck", mixinStandardHelpOptions = true,
    description = {
        "Checks every tablet's replicas as their tablet servers report them; "
            + "exit 1 if any tablet is not healthy (a replica FAILED, missing or unreachable, too "
            + "few replicas, or no leader)."})
final class ClusterKsckCommand implements Callable<Integer> {
  /** {@code nyala cluster ...}: cluster-wide checks. */
  @Command(name = "cluster", mixinStandardHelpOptions = true,
      description = "Cluster-wide checks and operations (see the subcommands).",
      subcommands = {ClusterKsckCommand.class, ClusterKeyCommands.RotateKeyCommand.class,
          ClusterKeyCommands.RetireKeyCommand.class})
  static final class ClusterCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(System.out);
    }
  }

  private static final String HIBERNATED = "HIBERNATED";
  private static final String ROW = "%-20s  %-32s  %-32s  %-13s  %-9s  %s%n";

  @Mixin MastersOption masters;

  @Option(names = "--timeout-ms", defaultValue = "10000",
      description = "How long to wait for the master and each tablet server (default 10000).")
  long timeoutMs;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    CliErrors.requireAtLeast(spec, "--timeout-ms", timeoutMs, 1);
    try (Transport transport = masters.newTransport()) {
      MasterProxy master = masters.masterProxy(transport, Math.min(timeoutMs, 3000));
      ListTabletServersResponsePB servers = call(master, "ListTabletServers",
          ListTabletServersRequestPB.getDefaultInstance(), MasterServiceStub::listTabletServers,
          ListTabletServersResponsePB::getError);
      Map<String, Map<String, ListTabletsResponsePB.StatusPB>> hosted = new HashMap<>();
      Map<String, String> unreachable = new HashMap<>();
      for (ListTabletServersResponsePB.Entry e : servers.getServersList()) {
        String uuid = e.getTsInfo().getUuid();
        if (!e.getLive()) {
          unreachable.put(uuid, "DEAD");
          continue;
        }
        try {
          Map<String, ListTabletsResponsePB.StatusPB> m = new HashMap<>();
          HostPort ts = HostPort.fromPb(e.getTsInfo().getRpcAddress());
          // The transport's stubs carry the user's token, which ListTablets needs.
          transport.<ListTabletsResponsePB>call(ts, o -> transport.tserver(ts,
                  Deadline.after(timeoutMs)).listTablets(ListTabletsRequestPB.getDefaultInstance(),
                  o))
              .join().getTabletsList().forEach(s -> m.put(s.getTabletId(), s));
          hosted.put(uuid, m);
        } catch (RuntimeException ex) {
          unreachable.put(uuid, "UNREACHABLE");
        }
      }
      ListTablesResponsePB tables = call(master, "ListTables",
          ListTablesRequestPB.getDefaultInstance(), MasterServiceStub::listTables,
          ListTablesResponsePB::getError);
      System.out.printf(ROW, "TABLE", "TABLET", "TSERVER", "STATE", "ROLE", "NOTE");
      int tablets = 0;
      int unhealthy = 0;
      for (ListTablesResponsePB.TableInfo t : tables.getTablesList()) {
        GetTableLocationsResponsePB locs = call(master, "GetTableLocations",
            GetTableLocationsRequestPB.newBuilder()
                .setTable(TableIdentifierPB.newBuilder().setTableId(t.getId()))
                .setMaxReturnedLocations(Integer.MAX_VALUE).build(),
            MasterServiceStub::getTableLocations, GetTableLocationsResponsePB::getError);
        for (TabletLocationsPB tl : locs.getTabletLocationsList()) {
          tablets++;
          if (!checkTablet(t, tl, hosted, unreachable)) {
            unhealthy++;
          }
        }
      }
      System.out.printf("%d tablets, %d not healthy%n", tablets, unhealthy);
      return unhealthy == 0 ? 0 : 1;
    }
  }

  /**
   * Prints one row per replica of {@code tl}; returns whether the tablet is healthy. A
   * HIBERNATED replica is healthy (cold, its group closed until something needs it: see
   * docs/dense-nodes.md), and a tablet whose replicas all hibernate needs no leader.
   */
  static boolean checkTablet(ListTablesResponsePB.TableInfo table, TabletLocationsPB tl,
      Map<String, Map<String, ListTabletsResponsePB.StatusPB>> hosted,
      Map<String, String> unreachable) {
    String id = tl.getTabletId();
    Set<String> placed = new LinkedHashSet<>();
    tl.getReplicasList().forEach(r -> placed.add(r.getTsInfo().getUuid()));
    boolean healthy = placed.size() >= table.getNumReplicas();
    boolean leader = false;
    boolean cold = true;
    Set<String> all = new LinkedHashSet<>(placed);
    hosted.forEach((uuid, m) -> {
      if (m.containsKey(id)) {
        all.add(uuid);
      }
    });
    for (String uuid : all) {
      ListTabletsResponsePB.StatusPB s = hosted.getOrDefault(uuid, Map.of()).get(id);
      String state = s != null ? s.getState()
          : unreachable.getOrDefault(uuid, "MISSING");
      String note = placed.contains(uuid) ? "" : "not in the master's configuration; ";
      if (s != null && !s.getError().isEmpty()) {
        note += s.getError();
      }
      healthy &= state.equals("RUNNING") || state.equals(HIBERNATED);
      cold &= state.equals(HIBERNATED);
      leader |= s != null && s.getRole().name().equals("LEADER");
      System.out.printf(ROW, table.getName(), id, uuid, state,
          s == null ? "-" : s.getRole().name(), note);
    }
    cold &= !all.isEmpty();
    if (!leader && !cold) {
      System.out.printf(ROW, table.getName(), id, "-", "NO LEADER", "-", "");
    }
    if (placed.size() < table.getNumReplicas()) {
      System.out.printf(ROW, table.getName(), id, "-", "UNDER-REPLICATED", "-",
          placed.size() + " of " + table.getNumReplicas() + " replicas placed");
    }
    return healthy && (leader || cold);
  }

  private <Q, R> R call(MasterProxy proxy, String name, Q req,
      MasterProxy.Invoker<Q, R> rpc, Function<R, io.nyala.common.proto.ErrorPB> errorOf) {
    try {
      return proxy.call(name, req, rpc, errorOf, Deadline.after(timeoutMs)).join();
    } catch (RuntimeException e) {
      throw NyalaException.from(e);
    }
  }
}
