package io.nyala.minicluster.cli;

import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.client.ClientConfig;
import io.nyala.client.NyalaClient;
import io.nyala.client.authn.TokenAttacher;
import io.nyala.client.authn.UserCredentials;
import io.nyala.client.master.MasterProxy;
import io.nyala.client.rpc.Backoff;
import io.nyala.client.rpc.ClientTls;
import io.nyala.client.rpc.Transport;
import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.rpc.Channels;
import io.nyala.master.MasterServer;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options every cluster command shares: {@code --masters} (comma-separated master RPC
 * addresses, or, when the option is not given, the {@value #ENV} environment variable, which
 * {@code nyala local-cluster} prints an {@code export} line for, so a session types it once),
 * and how to reach a secure cluster: a client configuration file ({@code --client-config}, else
 * {@value #CONFIG_ENV}, also printed by {@code local-cluster}; see {@link ClientConfig}), whose
 * settings {@code --trusted-ca-file}, {@code --user} and {@code --password-file} override. A
 * password is never taken on the command line, where {@code ps} would show it.
 */
final class MastersOption {
  /** The environment variable read when {@code --masters} is not given. */
  static final String ENV = io.nyala.client.MasterAddresses.ENV;
  /** The environment variable read when {@code --client-config} is not given. */
  static final String CONFIG_ENV = ClientConfig.ENV;

  @Option(names = "--masters", paramLabel = "HOST:PORT[,...]",
      description = "Comma-separated master RPC addresses (default: those of --client-config, "
          + "else $" + ENV + ", else those of $" + CONFIG_ENV + ").")
  String masters;

  @Option(names = {"--client-config", "--client_config"}, paramLabel = "FILE",
      description = "Client configuration file: masters, trusted CA, user and password file, as "
          + "bin/nyala local-cluster writes it (default: $" + CONFIG_ENV + ").")
  Path clientConfig;

  @Option(names = {"--trusted-ca-file", "--trusted_ca_file"}, paramLabel = "FILE",
      description = "PEM certificate of the cluster's CA: connect over TLS trusting it "
          + "(overrides the client config's).")
  Path trustedCaFile;

  @Option(names = "--user", description = "Authenticate as this user (overrides the client "
      + "config's); needs --password-file.")
  String user;

  @Option(names = {"--password-file", "--password_file"}, paramLabel = "FILE",
      description = "File whose first line is the user's password (overrides the client "
          + "config's).")
  Path passwordFile;

  @Option(names = "--connect-timeout-ms", paramLabel = "MS",
      defaultValue = "" + MasterProbe.DEFAULT_TIMEOUT_MS,
      description = "How long to wait for a first answer from any master before giving up "
          + "(default ${DEFAULT-VALUE}); the command's own operations keep their timeouts.")
  long connectTimeoutMs;

  /** The command the option is mixed into, for usage errors that name it. */
  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  /** The addresses once a master among them has answered; null before. */
  private String checked;
  /** The effective settings, once read. */
  private ClientConfig config;

  /**
   * The addresses to use: {@code --masters}, else those of {@code --client-config}, else
   * {@value #ENV}, else those of {@value #CONFIG_ENV}'s file. The
   * first call also checks that one of them is a master that answers within
   * {@code --connect-timeout-ms} (see {@link MasterProbe}), so that every cluster command fails
   * fast, and says what the address is, when it is wrong; commands call this after checking
   * their own options.
   *
   * @throws NyalaException INVALID_ARGUMENT naming all three when none is set;
   *     SERVICE_UNAVAILABLE saying what the addresses are when no master answers
   */
  String get() {
    if (checked == null) {
      ClientConfig c = config();
      // What the command line says beats the environment: --client-config's masters beat
      // NYALA_MASTERS, which beats NYALA_CLIENT_CONFIG's.
      String addrs = clientConfig != null ? resolve(masters, c.masters(), null)
          : resolve(masters, System.getenv(ENV), c.masters());
      if (mixee != null) {
        CliErrors.requireAtLeast(mixee, "--connect-timeout-ms", connectTimeoutMs, 1);
      }
      MasterProbe.check(addrs, Math.max(1, connectTimeoutMs), c.trustedCaFile());
      checked = addrs;
    }
    return checked;
  }

  /**
   * The client configuration in force: the file's ({@code --client-config}, else
   * {@value #CONFIG_ENV}, else none) with the explicit options over it.
   *
   * @throws NyalaException INVALID_ARGUMENT for a user without a password file or the reverse,
   *     NOT_FOUND for a missing configuration file
   */
  ClientConfig config() {
    if (config == null) {
      ClientConfig file = clientConfig != null ? ClientConfig.read(clientConfig)
          : ClientConfig.fromEnvironment();
      if (file == null) {
        file = new ClientConfig(null, null, null, null);
      }
      boolean ownUser = user != null || passwordFile != null;
      config = new ClientConfig(file.masters(),
          trustedCaFile != null ? trustedCaFile : file.trustedCaFile(),
          ownUser ? user : file.user(), ownUser ? passwordFile : file.passwordFile());
    }
    return config;
  }

  /** A client builder over {@link #get()}, with the CA and user of {@link #config()}. */
  NyalaClient.Builder clientBuilder() {
    NyalaClient.Builder b = NyalaClient.builder(get()).trustedCaFile(config().trustedCaFile());
    UserCredentials u = credentials();
    return u == null ? b : b.credentials(u.user(), u.password());
  }

  /** The transport of a command that calls masters itself: TLS as configured. */
  Transport newTransport() {
    return new Transport(config().trustedCaFile());
  }

  /**
   * A proxy to the masters of {@link #get()} over {@code transport}, which it makes attach the
   * user's token (when there is a user) to every call.
   */
  MasterProxy masterProxy(Transport transport, long attemptTimeoutMs) {
    MasterProxy proxy = new MasterProxy(masterList(), transport, Backoff.DEFAULT,
        attemptTimeoutMs);
    TokenAttacher.install(credentials(), proxy, transport, Math.max(attemptTimeoutMs, 10_000));
    return proxy;
  }

  /** The masters of {@link #get()}, parsed. */
  List<HostPort> masterList() {
    return HostPort.parseList(get(), MasterServer.DEFAULT_RPC_PORT);
  }

  /** Channels for calls open to anyone (a master's registration): TLS as configured. */
  Channels newChannels() {
    return newChannels(config().trustedCaFile());
  }

  static Channels newChannels(Path trustedCaFile) {
    Channels channels = new Channels();
    SslContext tls = trustedCaFile == null ? null : ClientTls.trusting(trustedCaFile).context();
    return tls == null ? channels : channels.useTls(tls);
  }

  private UserCredentials credentials() {
    ClientConfig c = config();
    return c.user() == null ? null : new UserCredentials(c.user(), c.password());
  }

  static String resolve(String option, String env, String fromConfig) {
    for (String v : new String[] {option, env, fromConfig}) {
      if (v != null && !v.isBlank()) {
        return v.trim();
      }
    }
    throw NyalaException.invalidArgument("no master address: give --masters HOST:PORT, set %s "
        + "or %s (bin/nyala local-cluster prints the lines to export)", ENV, CONFIG_ENV);
  }
}
