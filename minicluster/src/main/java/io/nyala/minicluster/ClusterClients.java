package io.nyala.minicluster;

import io.nyala.client.AsyncNyalaClient;
import io.nyala.client.ClientConfig;
import io.nyala.client.NyalaClient;
import io.nyala.client.authn.UserCredentials;
import io.nyala.common.NyalaException;
import io.nyala.common.security.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients a minicluster hands out: connected to its masters, trusting its CA and
 * authenticating as its user when it runs TLS, and closed with it; the builders tests start
 * their own clients from; and the client configuration file that tools read. Thread-safe.
 */
final class ClusterClients {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterClients.class);
  /** The client configuration file's name in the data root. */
  static final String CONFIG_FILE = "client.properties";

  private final Supplier<String> masterAddresses;
  private final ClusterTls tls;
  private final Path dataRoot;
  /** Clients made by {@link #newClient}, closed by {@link #closeAll}. Guarded by this. */
  private final List<NyalaClient> clients = new ArrayList<>();

  ClusterClients(Supplier<String> masterAddresses, ClusterTls tls, Path dataRoot) {
    this.masterAddresses = masterAddresses;
    this.tls = tls;
    this.dataRoot = dataRoot;
  }

  /**
   * A builder over the cluster's masters; if it runs TLS, trusting its CA and authenticating as
   * its user.
   */
  NyalaClient.Builder builder() {
    NyalaClient.Builder b = NyalaClient.builder(masterAddresses.get())
        .trustedCaFile(tls.trustedCaFile());
    UserCredentials user = tls.credentials();
    return user == null ? b : b.credentials(user.user(), user.password());
  }

  /** As {@link #builder()}, for an asynchronous client. */
  AsyncNyalaClient.Builder asyncBuilder() {
    AsyncNyalaClient.Builder b = AsyncNyalaClient.builder(masterAddresses.get())
        .trustedCaFile(tls.trustedCaFile());
    UserCredentials user = tls.credentials();
    return user == null ? b : b.credentials(user.user(), user.password());
  }

  synchronized NyalaClient newClient() {
    NyalaClient c = builder().build();
    clients.add(c);
    return c;
  }

  /**
   * Writes (again) {@value #CONFIG_FILE} in the data root, owner-only: the masters, and under
   * TLS the CA, the user and its password file ({@link ClientConfig}).
   */
  synchronized Path writeConfigFile() {
    UserCredentials user = tls.credentials();
    ClientConfig config = new ClientConfig(masterAddresses.get(), tls.trustedCaFile(),
        user == null ? null : user.user(), tls.passwordFile());
    Path file = dataRoot.resolve(CONFIG_FILE);
    try {
      Files.deleteIfExists(file);
      OwnerOnlyFiles.create(file);
      Files.writeString(file, config.format(), StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw NyalaException.ioError("cannot write the client config file " + file + ": " + e, e);
    }
  }

  synchronized void closeAll() {
    for (NyalaClient c : clients) {
      try {
        c.close();
      } catch (RuntimeException e) {
        LOG.warn("closing a client failed", e);
      }
    }
    clients.clear();
  }
}
