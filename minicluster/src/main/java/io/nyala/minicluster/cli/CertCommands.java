package io.nyala.minicluster.cli;

import io.nyala.common.security.tls.CertFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code nyala cert}: the certificate files of a TLS cluster, made by the operator before the
 * servers start (docs/architecture.md, "TLS on the wire"). Each command is instant and prints
 * one line naming what it wrote.
 */
@Command(name = "cert", mixinStandardHelpOptions = true,
    description = "Makes the CA and server certificates of a TLS cluster (PEM; keys 0600).",
    subcommands = {CertCommands.CreateCa.class, CertCommands.CreateServer.class})
final class CertCommands implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** {@code nyala cert create-ca --dir DIR}. */
  @Command(name = "create-ca", mixinStandardHelpOptions = true,
      description = "Makes a new cluster CA in DIR: ca.crt (every server's --trusted_ca_file, "
          + "and clients' trusted CA) and ca.key (keep it off the servers).")
  static final class CreateCa implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "Certificate directory.")
    Path dir;

    @Override
    public Integer call() {
      Path cert = CertFiles.createCa(dir);
      System.out.printf("wrote CA certificate %s and key %s%n", cert,
          dir.resolve(CertFiles.CA_KEY));
      return 0;
    }
  }

  /** {@code nyala cert create-server --dir DIR --name NAME --hosts h1,h2}. */
  @Command(name = "create-server", mixinStandardHelpOptions = true,
      description = "Makes NAME.crt and NAME.key in DIR, signed by DIR's CA: a server's "
          + "--tls_cert_file and --tls_key_file.")
  static final class CreateServer implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "Certificate directory with the CA.")
    Path dir;

    @Option(names = "--name", required = true, description = "Server name (names the files).")
    String name;

    @Option(names = "--hosts", required = true, split = ",",
        description = "Every host name and IP address the server is reached at.")
    List<String> hosts;

    @Override
    public Integer call() {
      CertFiles.ServerFiles f = CertFiles.createServer(dir, name, hosts);
      System.out.printf("wrote certificate %s and key %s of server %s for %s (valid %d days)%n",
          f.certFile(), f.keyFile(), name, String.join(",", hosts),
          CertFiles.SERVER_VALIDITY.toDays());
      return 0;
    }
  }
}
