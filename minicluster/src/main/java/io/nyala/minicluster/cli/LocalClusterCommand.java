package io.nyala.minicluster.cli;

import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import io.nyala.minicluster.ServerInfo;
import io.nyala.minicluster.ShutdownClose;
import io.nyala.tserver.TserverOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code nyala local-cluster}: a whole cluster in this JVM until Ctrl-C; the data is kept. */
@Command(name = "local-cluster", mixinStandardHelpOptions = true,
    description = {"Starts masters and tablet servers in one JVM and runs until SIGINT/SIGTERM.",
        "Servers listen on 127.0.0.1: masters on 7051, 7151, 7251, tablet servers on 7050, "
            + "7150, 7250 (web ports 8051..., 8050...) when those are free, else each on an "
            + "address of its own, which the summary shows.",
        "TLS and authentication are on: the servers require TLS with certificates of a CA made "
            + "in the data dir and clients a user's token. The client config file it writes "
            + "(masters, CA, user, password file; owner-only) lets every other command connect.",
        "Prints MASTERS=<addresses> and an export line for NYALA_MASTERS and "
            + "NYALA_CLIENT_CONFIG, which every other command reads; a rerun on the same data "
            + "dir keeps the data."})
final class LocalClusterCommand implements Callable<Integer> {
  @Option(names = "--num-masters", defaultValue = "1",
      description = "Number of masters (default 1; 3 to survive losing one).")
  int masters;

  /** The old spelling of --num-masters; every other command's --masters is an address list. */
  @Option(names = "--masters", hidden = true)
  void deprecatedMasters(int n) {
    System.err.println("warning: local-cluster --masters N is deprecated; use --num-masters N");
    masters = n;
  }

  @Option(names = "--tservers", defaultValue = "3",
      description = "Number of tablet servers (default 3).")
  int tservers;

  @Option(names = "--data-dir", defaultValue = "nyala-data",
      description = "Where the servers keep their data (default ./nyala-data).")
  Path dataDir;

  @Option(names = "--processes",
      description = "Run each server as its own process (default: all in this JVM).")
  boolean processes;

  @Option(names = "--encrypt",
      description = "Encrypt data at rest on every server, with a cluster key file created in "
          + "the data dir (NOT secure: for trying encryption out).")
  boolean encrypt;

  @Option(names = "--insecure",
      description = "Plaintext and no authentication: anyone who reaches the ports may read, "
          + "write and drop every table.")
  boolean insecure;

  @Option(names = "--master-flag", description = "A flag for every master (repeatable).")
  List<String> masterFlags = List.of();

  @Option(names = "--tserver-flag", description = "A flag for every tablet server (repeatable).")
  List<String> tserverFlags = List.of();

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    CliErrors.requireAtLeast(spec, "--num-masters", masters, 1);
    CliErrors.requireAtLeast(spec, "--tservers", tservers, 0);
    long t0 = System.nanoTime();
    Path log = dataDir.toAbsolutePath().resolve("local-cluster.log");
    ConsoleLog.toFile(log);
    MiniCluster.Builder b = MiniCluster.builder()
        .numMasters(masters)
        .numTabletServers(tservers)
        .dataRoot(dataDir.toAbsolutePath())
        .keepData(true)
        .localhostPorts(true)
        .networkPartitions(false)
        .encryption(encrypt)
        .tls(!insecure)
        .processMode(processes ? ProcessMode.EXTERNAL : ProcessMode.IN_PROCESS);
    masterFlags.forEach(b::masterFlag);
    // A server's own default, which the minicluster turns off for tests' restarts: a stopped
    // local cluster restarts with its quiet groups cold (docs/dense-nodes.md).
    b.tserverFlag("--tablet_hibernate_on_stop_ms="
        + new TserverOptions().tabletHibernateOnStopMs);
    tserverFlags.forEach(b::tserverFlag);
    MiniCluster cluster = b.build();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    CountDownLatch stopped = new CountDownLatch(1);
    ShutdownClose.register(cluster, () -> {
      System.out.println("shutting down the local cluster...");
      ConsoleLog.quiet();
    }, () -> {
      System.out.println("local cluster stopped; data kept in " + dataDir.toAbsolutePath());
      stopped.countDown();
    });
    System.out.println("MASTERS=" + cluster.masterAddresses());
    for (ServerInfo s : cluster.servers()) {
      System.out.printf("%-10s rpc %-22s web %s%n", s.name(), s.rpcAddress(), s.webUrl());
    }
    for (long pid : cluster.serverPids()) {
      System.out.println("SERVER_PID=" + pid);
    }
    if (!cluster.usesLocalhostPorts()) {
      System.out.println("note: ports 7050-8250 on 127.0.0.1 are in use (another cluster?), so "
          + "each server listens on an address of its own, as listed above");
    }
    System.out.printf("local cluster up in %d ms; data in %s, log in %s%n", ms,
        dataDir.toAbsolutePath(), log);
    Path config = dataDir.toAbsolutePath().resolve("client.properties");
    if (insecure) {
      Files.deleteIfExists(config); // a secure run's: its CA would make clients speak TLS
      System.out.println("INSECURE: plaintext and no authentication; this cluster is open to "
          + "anyone who can reach its ports");
      System.out.println("export " + MastersOption.ENV + "=" + cluster.masterAddresses());
    } else {
      config = cluster.clientConfigFile();
      System.out.printf("TLS and authentication required; clients read the CA and user "
          + "from %s%n", config);
      System.out.println("export " + MastersOption.ENV + "=" + cluster.masterAddresses() + " "
          + MastersOption.CONFIG_ENV + "=" + config);
    }
    System.out.printf("Ctrl-C (or kill %d) stops it%n", ProcessHandle.current().pid());
    System.out.flush();
    stopped.await();
    return 0;
  }
}
