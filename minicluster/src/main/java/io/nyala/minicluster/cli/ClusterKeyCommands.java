package io.nyala.minicluster.cli;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.GetClusterKeyStatusResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.RotateClusterKeyRequestPB;
import io.nyala.common.proto.master.RotateClusterKeyResponsePB;
import io.nyala.common.rpc.Channels;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.pki.Pem;
import io.nyala.common.security.pki.ServerCredentials;
import io.nyala.common.security.pki.TlsContexts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code nyala cluster rotate-key} and {@code nyala cluster retire-key}: rotating the cluster
 * key without downtime (docs/encryption.md, "Rotating the cluster key").
 */
final class ClusterKeyCommands {
  private static final int DEFAULT_MASTER_PORT = 7051;

  private ClusterKeyCommands() {}

  /** What both commands take: masters, the key file, TLS, how long to wait. */
  abstract static class KeyCommand implements Callable<Integer> {
    @Mixin MastersOption masters;

    @Option(names = "--cluster_key_file", required = true, paramLabel = "FILE",
        description = "The cluster key file the servers' --encryption_key_file names (one "
            + "file every server reads, or the operator copies it to each server's path "
            + "before the step that needs it: see docs/encryption.md).")
    Path keyFile;

    @Option(names = "--tls_cert_file", paramLabel = "FILE", description = "A certificate of "
        + "the cluster's CA to present (a cluster with --rpc_authentication=required serves "
        + "these calls to servers only); with --tls_key_file and a trusted CA (--trusted-ca-file "
        + "or the client config's). Without a trusted CA, plaintext.")
    Path tlsCert;

    @Option(names = "--tls_key_file", paramLabel = "FILE",
        description = "The private key of --tls_cert_file (PEM).")
    Path tlsKey;

    @Option(names = "--timeout-ms", defaultValue = "600000", description = "How long to wait "
        + "for every server to move before giving up (default ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--rpc-timeout-ms", defaultValue = "10000",
        description = "How long to wait for each master's answer (default ${DEFAULT-VALUE}).")
    long rpcTimeoutMs;

    @Spec CommandSpec spec;

    List<HostPort> addrs;
    /** The CA to trust: {@code --trusted-ca-file}, else the client config's; null for none. */
    Path trustedCa;

    /** The master addresses, after checking the options shared by both commands. */
    void checkOptions() {
      CliErrors.requireAtLeast(spec, "--timeout-ms", timeoutMs, 1);
      CliErrors.requireAtLeast(spec, "--rpc-timeout-ms", rpcTimeoutMs, 1);
      if ((tlsCert == null) != (tlsKey == null)) {
        throw NyalaException.invalidArgument("--tls_cert_file and --tls_key_file go together");
      }
      trustedCa = masters.config().trustedCaFile();
      if (tlsCert != null && trustedCa == null) {
        throw NyalaException.invalidArgument("--tls_cert_file needs a trusted CA: "
            + "--trusted-ca-file, or a client config that names one");
      }
      addrs = HostPort.parseList(MastersOption.resolve(masters.masters,
          System.getenv(MastersOption.ENV), masters.config().masters()), DEFAULT_MASTER_PORT);
    }

    Channels channels() {
      Channels c = new Channels();
      if (trustedCa == null) {
        return c;
      }
      try {
        X509Certificate ca = Pem.readCertificate(Files.readString(trustedCa),
            trustedCa.toString());
        if (tlsCert == null) {
          return c.useTls(TlsContexts.forClient(ca));
        }
        ServerCredentials own = new ServerCredentials(
            Pem.readPrivateKey(Files.readString(tlsKey), tlsKey.toString()),
            Pem.readCertificates(Files.readString(tlsCert), tlsCert.toString()));
        return c.useTls(TlsContexts.forClient(ca, own));
      } catch (IOException e) {
        c.close();
        throw NyalaException.ioError("cannot read the TLS files: " + e, e);
      }
    }

    ClusterKeyStatus status(Channels channels) {
      return ClusterKeyStatus.fetch(channels, addrs, rpcTimeoutMs);
    }

    /**
     * Waits, printing a progress line whenever it changes, until every master and live tablet
     * server has moved to {@code version} and the catalog holds no older tablet key.
     */
    void await(Channels channels, int version) {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      String last = "";
      while (true) {
        ClusterKeyStatus s = status(channels);
        String line;
        List<String> pending;
        try {
          line = s.progress(version);
          pending = s.pending(version, false);
        } catch (NyalaException e) {
          line = "waiting for a leader master: " + e.getMessage();
          pending = List.of(line);
        }
        if (!line.equals(last)) {
          System.out.println(line);
          last = line;
        }
        if (pending.isEmpty()) {
          return;
        }
        if (System.nanoTime() - deadline >= 0) {
          throw NyalaException.timedOut("cluster key version %d: not every server moved "
              + "within %d ms: %s", version, timeoutMs, String.join("; ", pending));
        }
        sleep(500);
      }
    }

    /**
     * Removes the versions below {@code version} from the key file once nothing needs them:
     * refuses (ILLEGAL_STATE) naming every master or tablet server, up or down, that has not
     * moved, and any tablet key the catalog holds under an older version.
     */
    void retire(Channels channels, int version) {
      FileKeyProvider.withFileLock(keyFile, () -> {
        List<String> pending = status(channels).pending(version, true);
        if (!pending.isEmpty()) {
          throw NyalaException.illegalState("cannot retire the cluster key versions below %d "
              + "from %s: a restart would still need them: %s", version, keyFile,
              String.join("; ", pending));
        }
        List<Integer> retired = FileKeyProvider.retireVersionsBefore(keyFile, version);
        System.out.printf("retired cluster key versions %s from %s; it holds %s%n", retired,
            keyFile, FileKeyProvider.open(keyFile).versions());
        return null;
      });
    }

    private static void sleep(long ms) {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw NyalaException.unavailable("interrupted while waiting for the rotation");
      }
    }
  }

  /** Adds a version, tells the leader, waits for every server to move, maybe retires. */
  @Command(name = "rotate-key", mixinStandardHelpOptions = true,
      description = {
          "Rotates the cluster key without downtime: adds a new key version to "
              + "--cluster_key_file, tells the leader master (which re-wraps every tablet key in "
              + "the catalog and tells the other masters and every tablet server, each of which "
              + "re-wraps its server key), then waits, printing progress, until every master "
              + "and live tablet server has moved. The old version stays in the file until "
              + "'nyala cluster retire-key' (or --retire-old) removes it. Refused while an "
              + "earlier rotation is still in progress. See docs/encryption.md, \"Rotating the "
              + "cluster key\"."})
  static final class RotateKeyCommand extends KeyCommand {
    @Option(names = "--key_bits", defaultValue = "256",
        description = "AES key length of the new version: 128, 192 or 256 (default 256).")
    int keyBits;

    @Option(names = "--retire-old", description = "Once every server has moved, remove the "
        + "older versions from the key file, as 'nyala cluster retire-key' does.")
    boolean retireOld;

    @Override
    public Integer call() {
      checkOptions();
      try (Channels channels = channels()) {
        int version = FileKeyProvider.withFileLock(keyFile, () -> start(channels));
        System.out.printf("rotating the cluster key to version %d%n", version);
        await(channels, version);
        System.out.printf("every server moved to cluster key version %d%n", version);
        if (retireOld) {
          retire(channels, version);
        }
      }
      return 0;
    }

    /** Under the key file's lock: checks no rotation runs, adds the version, tells the leader. */
    private int start(Channels channels) {
      ClusterKeyStatus s = status(channels);
      GetClusterKeyStatusResponsePB leader = s.leader();
      int current = leader.getCurrentVersion();
      if (current == 0) {
        throw NyalaException.illegalState("the cluster does not encrypt data at rest: there is "
            + "no cluster key to rotate");
      }
      int newest = FileKeyProvider.open(keyFile).currentVersion();
      if (newest != current) {
        throw NyalaException.illegalState("%s holds version %d but the leader master uses "
            + "version %d: another rotation is in progress (or this is not the cluster's key "
            + "file); let it finish", keyFile, newest, current);
      }
      List<String> pending = s.pending(current, false);
      if (!pending.isEmpty()) {
        throw NyalaException.illegalState("the rotation to cluster key version %d is still in "
            + "progress: %s; let 'nyala cluster rotate-key' or 'retire-key' finish it first",
            current, String.join("; ", pending));
      }
      int version = FileKeyProvider.addVersion(keyFile, keyBits);
      HostPort at = s.masters().entrySet().stream()
          .filter(e -> e.getValue() == leader).findFirst().orElseThrow().getKey();
      RotateClusterKeyResponsePB r = MasterServiceGrpc.newBlockingStub(channels.get(at))
          .withDeadlineAfter(rpcTimeoutMs, TimeUnit.MILLISECONDS)
          .rotateClusterKey(RotateClusterKeyRequestPB.newBuilder().setNewVersion(version)
              .build());
      if (NyalaException.isError(r.getError())) {
        throw NyalaException.fromPb(r.getError());
      }
      return version;
    }
  }

  /** Waits for the current rotation to finish, then removes the older versions. */
  @Command(name = "retire-key", mixinStandardHelpOptions = true,
      description = {
          "Removes the cluster key versions older than the current one from "
              + "--cluster_key_file, after waiting (printing progress) until every master and "
              + "live tablet server has moved to the current version. Refused, naming them, "
              + "while a server (up or down) or the catalog still holds something wrapped by "
              + "an older version, or a master's catalog log would replay entries under one: "
              + "after retirement a restart must never need a retired version. See "
              + "docs/encryption.md, \"Rotating the cluster key\"."})
  static final class RetireKeyCommand extends KeyCommand {
    @Override
    public Integer call() {
      checkOptions();
      try (Channels channels = channels()) {
        int version = status(channels).leader().getCurrentVersion();
        if (version == 0) {
          throw NyalaException.illegalState("the cluster does not encrypt data at rest: there "
              + "is no cluster key to retire");
        }
        await(channels, version);
        retire(channels, version);
      }
      return 0;
    }
  }
}
