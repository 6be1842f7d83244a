package io.nyala.client;

import io.nyala.client.stats.ClientCounters;
import io.nyala.common.StatusCode;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable snapshot of what one client has done since it was built: Kudu's
 * {@code KuduClient.getStatistics()}. Every figure only grows; take two snapshots and subtract
 * to measure a stretch of work. Each counter is read at some moment during
 * {@link NyalaClient#getStatistics()}, so figures of work still in flight may disagree by that
 * work (docs/architecture.md, "Client statistics").
 *
 * @param writeOpsApplied operations handed to a session's flush
 * @param writeOpsAcknowledged operations a tablet server applied without a row error
 * @param writeRowErrors operations that ended with an error, a row error or a failed request
 * @param writeBytesSent serialized bytes of write requests, every attempt (retries) counted
 * @param scannersOpened server-side scanners opened, one per tablet scanned plus one per reopen
 *     after a failover
 * @param scanRowsReturned rows scans returned
 * @param scanBytesReturned encoded row bytes scans returned
 * @param rpcCalls tablet RPC attempts sent (write requests and scan calls)
 * @param rpcRetries tablet RPCs sent again after a failed attempt
 * @param rpcFailures failed tablet RPC attempts by status code; codes without one are absent
 * @param tablets per tablet called, by tablet id
 */
public record ClientStatistics(long writeOpsApplied, long writeOpsAcknowledged,
    long writeRowErrors, long writeBytesSent, long scannersOpened, long scanRowsReturned,
    long scanBytesReturned, long rpcCalls, long rpcRetries, Map<StatusCode, Long> rpcFailures,
    Map<String, TabletStatistics> tablets) {

  /** Copies the maps, so a snapshot never changes. */
  public ClientStatistics {
    rpcFailures = Map.copyOf(rpcFailures);
    tablets = Map.copyOf(tablets);
  }

  static ClientStatistics of(ClientCounters c) {
    Map<StatusCode, Long> failures = new EnumMap<>(StatusCode.class);
    for (StatusCode code : StatusCode.values()) {
      long n = c.rpcFailures(code);
      if (n > 0) {
        failures.put(code, n);
      }
    }
    Map<String, TabletStatistics> tablets = new TreeMap<>();
    c.tablets().forEach((id, t) ->
        tablets.put(id, new TabletStatistics(id, t.ops(), t.errors(), t.retries())));
    return new ClientStatistics(c.writeOpsApplied(), c.writeOpsAcknowledged(),
        c.writeRowErrors(), c.writeBytesSent(), c.scannersOpened(), c.scanRowsReturned(),
        c.scanBytesReturned(), c.rpcCalls(), c.rpcRetries(), failures, tablets);
  }

  /**
   * @param code a status code
   * @return failed tablet RPC attempts with that code, 0 if none
   */
  public long rpcFailures(StatusCode code) {
    return rpcFailures.getOrDefault(code, 0L);
  }

  /**
   * @param tabletId a tablet's id
   * @return what this client did with it; all zero if it never called the tablet
   */
  public TabletStatistics getTabletStatistics(String tabletId) {
    TabletStatistics t = tablets.get(tabletId);
    return t != null ? t : new TabletStatistics(tabletId, 0, 0, 0);
  }
}
