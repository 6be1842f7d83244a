package io.nyala.common.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.HostPort;
import io.nyala.common.net.TestPorts;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server given no bind flags listens on loopback only, for RPC, Raft and web alike, and
 * advertises loopback; one told {@code --rpc_bind_addresses=0.0.0.0:PORT} listens on every
 * interface (docs/architecture.md, "Listeners and addresses"). The sockets are read from the
 * kernel, not from what the server says it bound.
 */
@Timeout(60)
class LoopbackDefaultTest {
  private static final InetAddress LOOPBACK = address("127.0.0.1");
  private static final InetAddress ANY = address("0.0.0.0");
  private static final InetAddress ANY6 = address("::");

  @TempDir Path dir;

  /** The least a server does: RPC (no services), Raft (no groups) and web listeners. */
  private static final class ListenersOnly extends ServerBase {
    ListenersOnly(ServerOptions o, int rpcPort, int raftPort, int webPort) {
      super("test", o, rpcPort, raftPort, webPort);
    }

    @Override
    public void start() {
      openFs();
      startRpc(List.of());
      buildRaftServer(gid -> new BaseStateMachine(), null, RaftStorage.StartupOption.RECOVER);
      startRaft();
      startWeb(() -> "<p>home</p>", web -> { });
    }
  }

  private ServerOptions options() {
    ServerOptions o = new ServerOptions();
    o.fsWalDir = dir.resolve("wal").toString();
    return o;
  }

  @Test
  void withoutBindFlagsEveryListenerIsOnLoopbackOnly() throws Exception {
    int rpc = TestPorts.freePort();
    int raft = TestPorts.freePort();
    int web = TestPorts.freePort();
    try (ListenersOnly s = new ListenersOnly(options(), rpc, raft, web)) {
      s.start();
      for (int port : List.of(rpc, raft, web)) {
        assertThat(ListeningSockets.on(port)).as("listeners on port " + port)
            .containsExactly(LOOPBACK);
      }
      assertThat(s.rpcAddress()).isEqualTo(new HostPort("127.0.0.1", rpc));
      assertThat(s.raftAddress()).isEqualTo(new HostPort("127.0.0.1", raft));
      assertThat(s.httpAddress()).isEqualTo(new HostPort("127.0.0.1", web));
      assertThat(s.name()).isEqualTo("127.0.0.1:" + rpc);
      assertThat(healthz(s.httpAddress())).isEqualTo(200);
    }
  }

  @Test
  void explicitWildcardListensOnEveryInterfaceAndAdvertisesAName() throws Exception {
    int rpc = TestPorts.freePort();
    int raft = TestPorts.freePort();
    int web = TestPorts.freePort();
    ServerOptions o = options();
    o.rpcBindAddresses = "0.0.0.0:" + rpc;
    try (ListenersOnly s = new ListenersOnly(o, rpc, raft, web)) {
      s.start();
      for (int port : List.of(rpc, raft, web)) {
        Set<InetAddress> bound = ListeningSockets.on(port);
        assertThat(bound).as("listeners on port " + port).hasSize(1);
        assertThat(bound.iterator().next()).isIn(ANY, ANY6);
      }
      // Others cannot reach a wildcard: the server advertises this machine's name instead.
      assertThat(s.rpcAddress().host()).isNotIn("0.0.0.0", "::");
      assertThat(s.raftAddress().host()).isNotIn("0.0.0.0", "::");
      assertThat(healthz(new HostPort("127.0.0.1", web))).isEqualTo(200);
    }
  }

  @Test
  void theWildcardWarningNamesEachListenerOpenToEveryInterface() {
    HostPort loop = new HostPort("127.0.0.1", 7050);
    assertThat(ServerOptions.wildcardWarning("ts-1", loop, new HostPort("127.0.0.1", 7060),
        null)).isNull();
    assertThat(ServerOptions.wildcardWarning("ts-1", new HostPort("0.0.0.0", 7050),
        new HostPort("0.0.0.0", 7060), new HostPort("127.0.0.1", 8050)))
        .startsWith("ts-1 listens on every interface (RPC 0.0.0.0:7050, Raft 0.0.0.0:7060)");
    assertThat(ServerOptions.wildcardWarning("m", loop, new HostPort("127.0.0.1", 7061),
        new HostPort("::", 8051))).contains("(HTTP :::8051)");
  }

  private static int healthz(HostPort http) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://"
        + http.host() + ":" + http.port() + "/healthz")).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  private static InetAddress address(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
