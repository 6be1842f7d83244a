package io.nyala.minicluster;

import io.nyala.client.NyalaClient;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clients a minicluster hands out: connected to its masters, trusting its CA when it runs
 * TLS, and closed with it. Thread-safe.
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

  /** A builder over the cluster's masters, trusting its CA if it runs TLS. */
  private NyalaClient.Builder builder() {
    return NyalaClient.builder(masterAddresses.get()).trustedCaFile(tls.trustedCaFile());
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
