package io.nyala.minicluster;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.server.ServerBase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The servers of one role (the masters, or the tablet servers) of a minicluster, by 0-based
 * index: starts and stops them together, and finds one by uuid. The list is fixed when the
 * cluster is made; each {@link ServerNode} guards its own state.
 */
final class ServerGroup {
  private final List<ServerNode> nodes;

  ServerGroup(List<ServerNode> nodes) {
    this.nodes = List.copyOf(nodes);
  }

  /** The server at {@code index} (0-based). */
  ServerNode get(int index) {
    return nodes.get(index);
  }

  /** Every server of the group, in index order. */
  List<ServerNode> nodes() {
    return nodes;
  }

  /** How many servers the group has, running or not. */
  int size() {
    return nodes.size();
  }

  /** Starts every server that is not running, all at once; the first failure is thrown. */
  void startAll() {
    forAll(nodes, ServerNode::start);
  }

  /**
   * Starts every server of a cluster that is not running; the first failure is thrown.
   * In-process, the masters first, then the tablet servers in parallel. As processes, all at
   * once: each JVM's start (class loading, at C1) is most of a server's start, and a tablet
   * server needs no master to start (it heartbeats until one answers), so the tablet servers'
   * JVMs boot while the masters' do.
   */
  static void startCluster(ServerGroup masters, ServerGroup tservers) {
    if (masters.nodes.isEmpty() || !masters.nodes.get(0).external()) {
      masters.startAll();
      tservers.startAll();
      return;
    }
    List<ServerNode> all = new ArrayList<>(masters.nodes);
    all.addAll(tservers.nodes);
    forAll(all, ServerNode::start);
  }

  /**
   * Stops every server, all at once (a dense tablet server takes seconds to close its Raft
   * groups); the first failure is thrown.
   */
  void stopAll() {
    forAll(nodes, ServerNode::stop);
  }

  /** Runs {@code action} on every node at once; the first failure is thrown. */
  private static void forAll(List<ServerNode> nodes, Consumer<ServerNode> action) {
    if (nodes.isEmpty()) {
      return; // a cluster of masters only: no pool of zero threads
    }
    if (nodes.size() == 1) {
      action.accept(nodes.get(0));
      return;
    }
    ExecutorService pool = Executors.newFixedThreadPool(nodes.size());
    try {
      List<CompletableFuture<Void>> fs = new ArrayList<>();
      for (ServerNode n : nodes) {
        fs.add(CompletableFuture.runAsync(() -> action.accept(n), pool));
      }
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new)).join();
    } catch (CompletionException e) {
      throw NyalaException.from(e);
    } finally {
      pool.shutdown();
    }
  }

  /** How many of the servers run now. */
  long runningCount() {
    return nodes.stream().filter(ServerNode::isRunning).count();
  }

  /** The servers' RPC addresses, in index order. */
  List<HostPort> rpcAddresses() {
    return nodes.stream().map(ServerNode::rpcAddress).toList();
  }

  /** Each server's name, addresses, uuid and whether it runs, in index order. */
  List<ServerInfo> infos() {
    return nodes.stream().map(ServerNode::info).toList();
  }

  /** The pids of the servers' running processes (EXTERNAL mode), in index order. */
  List<Long> pids() {
    List<Long> out = new ArrayList<>();
    for (ServerNode n : nodes) {
      long pid = n.pid();
      if (pid > 0) {
        out.add(pid);
      }
    }
    return out;
  }

  /** The running in-process server with this uuid, or null. */
  ServerBase inProcessServerByUuid(String uuid) {
    for (ServerNode n : nodes) {
      ServerBase s = n.server();
      if (s != null && s.uuid().equals(uuid)) {
        return s;
      }
    }
    return null;
  }

  /** The index of the server with this uuid, or -1. */
  int indexOf(String uuid) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).info().uuid().equals(uuid)) {
        return i;
      }
    }
    return -1;
  }
}
