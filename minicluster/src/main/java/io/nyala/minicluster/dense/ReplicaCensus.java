package io.nyala.minicluster.dense;

import io.nyala.common.NyalaException;
import io.nyala.common.proto.master.ListTabletServersRequestPB;
import io.nyala.common.proto.master.ListTabletServersResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.ListTabletsRequestPB;
import io.nyala.common.proto.tserver.ListTabletsResponsePB;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import io.nyala.common.rpc.Channels;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ServerInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who holds which replica in which state, as the servers themselves tell it: each tablet
 * server's ListTablets and {@code /metrics}, and the leader master's ListTabletServers. Every
 * read answers "unknown" (null or -1) for a server that does not answer, so a caller can poll
 * through restarts.
 */
public final class ReplicaCensus implements AutoCloseable {
  private static final Pattern SERIES = Pattern.compile(
      "(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? ([0-9.eE+-]+|NaN)$");

  private final MiniCluster cluster;
  /** Present the harness's certificate under TLS: ListTablets needs a user or a server. */
  private final Channels channels;
  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(2)).build();

  /** A census of {@code cluster}'s servers. */
  public ReplicaCensus(MiniCluster cluster) {
    this.cluster = cluster;
    this.channels = cluster.newHarnessChannels();
  }

  /**
   * Tablet server {@code index}'s replicas by state as its ListTablets reports them (e.g.
   * {@code RUNNING -> 290, HIBERNATED -> 10}); null if it does not answer.
   */
  public Map<String, Integer> states(int index) {
    ServerInfo ts = cluster.tabletServer(index);
    if (!ts.running()) {
      return null;
    }
    try {
      ListTabletsResponsePB r = TabletServerServiceGrpc.newBlockingStub(
              channels.get(ts.rpcAddress())).withDeadlineAfter(10, TimeUnit.SECONDS)
          .listTablets(ListTabletsRequestPB.getDefaultInstance());
      Map<String, Integer> out = new TreeMap<>();
      r.getTabletsList().forEach(s -> out.merge(s.getState(), 1, Integer::sum));
      return out;
    } catch (RuntimeException e) {
      return null; // starting, stopped or killed
    }
  }

  /**
   * The sum over the series of metric {@code name} that tablet server {@code index} exports
   * with label {@code label="value"} (every series if {@code label} is null); -1 if it does
   * not answer or exports no such series.
   */
  public double metric(int index, String name, String label, String value) {
    ServerInfo ts = cluster.tabletServer(index);
    String body;
    try {
      body = http.send(HttpRequest.newBuilder(URI.create(ts.webUrl() + "/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    } catch (java.io.IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
    String wanted = label == null ? null : label + "=\"" + value + "\"";
    Matcher m = SERIES.matcher(body);
    double sum = 0;
    boolean found = false;
    while (m.find()) {
      String labels = m.group(2) == null ? "" : m.group(2);
      if (m.group(1).equals(name) && (wanted == null || labels.contains(wanted))) {
        sum += Double.parseDouble(m.group(3));
        found = true;
      }
    }
    return found ? sum : -1;
  }

  /** Tablet server {@code index}'s {@code tablet_replicas{state=...}} gauge; -1 if unknown. */
  public long replicasIn(int index, String state) {
    return (long) metric(index, "tablet_replicas", "state", state);
  }

  /**
   * The master's view: tablet server uuid to its ListTabletServers entry, from the master that
   * serves as leader; null if none answers.
   */
  public Map<String, ListTabletServersResponsePB.Entry> masterView() {
    for (int i = 0; i < cluster.numMasters(); i++) {
      ServerInfo m = cluster.master(i);
      if (!m.running()) {
        continue;
      }
      try {
        ListTabletServersResponsePB r = MasterServiceGrpc.newBlockingStub(
                channels.get(m.rpcAddress())).withDeadlineAfter(5, TimeUnit.SECONDS)
            .listTabletServers(ListTabletServersRequestPB.getDefaultInstance());
        if (!NyalaException.isError(r.getError())) {
          Map<String, ListTabletServersResponsePB.Entry> out = new HashMap<>();
          r.getServersList().forEach(e -> out.put(e.getTsInfo().getUuid(), e));
          return out;
        }
      } catch (RuntimeException e) {
        // not reachable: try the next master
      }
    }
    return null;
  }

  /**
   * Whether every tablet server holds {@code perTserver} replicas, each RUNNING or HIBERNATED by
   * its own ListTablets, and the master has heard of all of them (live, with a heartbeat in the
   * last {@code freshMillis} counting {@code perTserver} tablets, and as many replicas reported
   * awake or hibernated).
   */
  public boolean allReported(int perTserver, long freshMillis) {
    return notReported(perTserver, freshMillis) == null;
  }

  /**
   * What keeps {@link #allReported} false (the first server and figure that fall short), or
   * null when every replica is reported: the message an await prints when it times out.
   */
  public String notReported(int perTserver, long freshMillis) {
    Map<String, ListTabletServersResponsePB.Entry> master = masterView();
    if (master == null) {
      return "no master serves as leader";
    }
    for (int i = 0; i < cluster.numTabletServers(); i++) {
      String name = cluster.tabletServer(i).name();
      Map<String, Integer> s = states(i);
      if (s == null || s.getOrDefault("RUNNING", 0) + s.getOrDefault("HIBERNATED", 0)
          != perTserver) {
        return name + " lists " + s + ", not " + perTserver + " RUNNING or HIBERNATED";
      }
      ListTabletServersResponsePB.Entry e = master.get(cluster.tabletServer(i).uuid());
      if (e == null || !e.getLive() || e.getMillisSinceHeartbeat() > freshMillis
          || e.getNumLiveTablets() != perTserver
          || e.getNumAwakeReplicas() + e.getNumHibernatedReplicas() != perTserver) {
        return "the master's entry of " + name + " is "
            + (e == null ? "missing" : String.format("live=%b, heartbeat %d ms ago (> %d?), "
                + "%d live tablets, %d awake + %d hibernated replicas reported", e.getLive(),
                e.getMillisSinceHeartbeat(), freshMillis, e.getNumLiveTablets(),
                e.getNumAwakeReplicas(), e.getNumHibernatedReplicas()));
      }
    }
    return null;
  }

  @Override
  public void close() {
    channels.close();
  }
}
