package io.nyala.minicluster;

import io.nyala.client.NyalaClient;
import io.nyala.client.authn.UserCredentials;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients a minicluster hands out: connected to its masters, trusting its CA and
 * authenticating as its user when it runs TLS, and closed with it. Thread-safe.
 */
final class ClusterClients {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterClients.class);

  private final Supplier<String> masterAddresses;
  private final ClusterTls tls;
  /** Clients made by {@link #newClient}, closed by {@link #closeAll}. Guarded by this. */
  private final List<NyalaClient> clients = new ArrayList<>();

  ClusterClients(Supplier<String> masterAddresses, ClusterTls tls) {
    this.masterAddresses = masterAddresses;
    this.tls = tls;
  }

  /**
   * A builder over the cluster's masters; if it runs TLS, trusting its CA and authenticating as
   * its user.
   */
  private NyalaClient.Builder builder() {
    NyalaClient.Builder b = NyalaClient.builder(masterAddresses.get())
        .trustedCaFile(tls.trustedCaFile());
    UserCredentials user = tls.credentials();
    return user == null ? b : b.credentials(user.user(), user.password());
  }

  synchronized NyalaClient newClient() {
    NyalaClient c = builder().build();
    clients.add(c);
    return c;
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
