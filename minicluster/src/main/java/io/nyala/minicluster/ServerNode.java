package io.nyala.minicluster;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.log.LogContext;
import io.nyala.common.server.ServerBase;
import io.nyala.master.MasterOptions;
import io.nyala.master.MasterServer;
import io.nyala.tserver.TabletServer;
import io.nyala.tserver.TserverOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import picocli.CommandLine;

/**
 * One server of the minicluster, run in this JVM. It keeps its directories and addresses across
 * restarts; each start builds a fresh server object from the same flags.
 */
final class ServerNode {
  private final ServerRole role;
  private final int index;
  private final String name;
  private final Path root;
  private final HostPort rpc;
  private final HostPort raft;
  private final HostPort http;
  /** Flags given by the builder, applied after the minicluster's own so they win. */
  private final List<String> extraFlags;
  /** This server's own flags, applied last; changed between starts. Guarded by this. */
  private List<String> ownFlags = List.of();
  private final List<String> masterAddresses;

  private final ProcessMode mode;
  private final List<String> jvmOptions;
  private final ClusterTls tls;

  /** In-process mode: the running server. Guarded by this. */
  private ServerBase server;
  /** External mode: the running process. Guarded by this. */
  private ExternalProcess process;
  private String uuid = "";
  /** Uuids of the servers this one must not hear from ({@link NetworkPartitions}). */
  private Set<String> cutOff = Set.of();

  ServerNode(ServerRole role, int index, Path root, String host, int rpcPort, int raftPort,
      int httpPort, List<String> masterAddresses, List<String> extraFlags, ProcessMode mode,
      List<String> jvmOptions, ClusterTls tls) {
    this.mode = mode;
    this.tls = tls;
    this.jvmOptions = List.copyOf(jvmOptions);
    this.role = role;
    this.index = index;
    this.name = role.namePrefix() + "-" + (index + 1);
    this.root = root.resolve(name);
    this.rpc = new HostPort(host, rpcPort);
    this.raft = new HostPort(host, raftPort);
    this.http = new HostPort(host, httpPort);
    this.masterAddresses = masterAddresses;
    this.extraFlags = List.copyOf(extraFlags);
  }

  /** The full command line this server runs with. */
  synchronized List<String> flags() {
    List<String> f = new ArrayList<>();
    f.add("--server_name=" + name);
    f.add("--fs_wal_dir=" + root.resolve("wal"));
    f.add("--fs_data_dirs=" + root.resolve("data"));
    f.add("--rpc_bind_addresses=" + rpc);
    f.add("--raft_bind_address=" + raft);
    f.add("--webserver_port=" + http.port());
    f.add("--master_addresses=" + String.join(",", masterAddresses));
    if (role == ServerRole.MASTER) {
      f.addAll(tls.masterFlagsFor(name, rpc.host()));
    } else {
      f.addAll(tls.tserverFlagsFor(name, rpc.host()));
    }
    f.addAll(extraFlags);
    f.addAll(ownFlags);
    return f;
  }

  /** Replaces this server's own flags for its later starts. */
  synchronized void setOwnFlags(List<String> flags) {
    ownFlags = List.copyOf(flags);
  }

  /** The exit status of a process that ended without this node stopping or killing it. */
  synchronized OptionalInt exitStatus() {
    return process == null ? OptionalInt.empty() : process.exitStatus();
  }

  /** Whether this server runs as a process of its own. */
  boolean external() {
    return mode == ProcessMode.EXTERNAL;
  }

  synchronized void start() {
    if (mode == ProcessMode.EXTERNAL) {
      startExternal();
      return;
    }
    if (server != null) {
      return;
    }
    String[] args = flags().toArray(String[]::new);
    ServerLogFiles.open(name, root.resolve("server.log"));
    ServerBase s;
    if (role == ServerRole.MASTER) {
      MasterOptions o = new MasterOptions();
      parse(o, args);
      s = new MasterServer(o);
    } else {
      TserverOptions o = new TserverOptions();
      parse(o, args);
      s = new TabletServer(o);
    }
    try {
      s.start();
    } catch (RuntimeException e) {
      s.close();
      ServerLogFiles.close(name);
      throw e;
    } finally {
      LogContext.clear();
    }
    uuid = s.uuid();
    server = s;
    reapplyCutOff();
  }

  /**
   * Makes this server not hear from {@code peers} (empty: heal), now if it runs and after each
   * later start.
   */
  synchronized void cutOff(Set<String> peers) {
    if (peers.equals(cutOff)) {
      return;
    }
    cutOff = Set.copyOf(peers);
    if (server != null) {
      server.networkFaults().block(cutOff);
    } else if (process != null && process.isAlive()) {
      RemoteFaults.setPartition(name, rpc, tls, cutOff);
    }
  }

  /** A fresh start hears from everyone: cut it off again if a partition still holds. */
  private void reapplyCutOff() {
    if (cutOff.isEmpty()) {
      return;
    }
    if (server != null) {
      server.networkFaults().block(cutOff);
    } else {
      RemoteFaults.setPartition(name, rpc, tls, cutOff);
    }
  }

  private void parse(Object options, String[] args) {
    CommandLine cl = new CommandLine(options);
    cl.setOverwrittenOptionsAllowed(true);
    try {
      cl.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw NyalaException.invalidArgument("%s: bad flags: %s", name, e.getMessage());
    }
  }

  private void startExternal() {
    if (process != null && process.isAlive()) {
      return;
    }
    String r = role == ServerRole.MASTER ? "master" : "tserver";
    ServerReadiness.requireUnused(name, role, rpc, root);
    process = ExternalProcess.start(name, r, flags(), root.resolve("server.log"), jvmOptions);
    ServerReadiness.awaitRpc(name, role, rpc, tls, process, root.resolve("server.log"));
    uuid = io.nyala.common.fs.ServerFs.readInstance(
        root.resolve("wal").resolve(io.nyala.common.fs.ServerFs.INSTANCE)).getUuid();
    reapplyCutOff();
  }

  /** SIGKILL (external mode only). */
  synchronized void kill() {
    requireExternal("kill");
    if (process != null) {
      process.kill();
      process = null;
    }
  }

  /** SIGSTOP (external mode only). */
  synchronized void pause() {
    requireExternal("pause");
    if (process == null) {
      throw NyalaException.illegalState("%s is not running", name);
    }
    process.pause();
  }

  /** SIGCONT (external mode only). */
  synchronized void resume() {
    requireExternal("resume");
    if (process != null) {
      process.resume();
    }
  }

  /** The server process's pid (external mode), or -1. */
  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  private void requireExternal(String what) {
    if (mode != ProcessMode.EXTERNAL) {
      throw new NyalaException(io.nyala.common.StatusCode.NOT_SUPPORTED, what
          + " needs a minicluster in EXTERNAL process mode (" + name + " runs in this JVM)");
    }
  }

  synchronized void stop() {
    if (process != null) {
      process.stop();
      process = null;
      return;
    }
    if (server != null) {
      try {
        server.close();
      } finally {
        server = null;
        LogContext.clear();
        ServerLogFiles.close(name);
      }
    }
  }

  synchronized boolean isRunning() {
    return server != null || (process != null && process.isAlive());
  }

  /** The running server object (null when stopped). */
  synchronized ServerBase server() {
    return server;
  }

  synchronized ServerInfo info() {
    return new ServerInfo(name, role, index, rpc, http, uuid, isRunning());
  }

  String name() {
    return name;
  }

  ServerRole role() {
    return role;
  }

  HostPort rpcAddress() {
    return rpc;
  }

  /** Every address this server listens on while it runs: RPC, Raft and web. */
  List<HostPort> listenAddresses() {
    return List.of(rpc, raft, http);
  }

  Path root() {
    return root;
  }
}
