package io.nyala.common.server;

import io.nyala.common.HostPort;
import io.nyala.common.NyalaException;
import io.nyala.common.security.authz.RpcAuthentication;
import io.nyala.common.security.tls.WireTls;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Option;

/**
 * Flags every server takes, Kudu-style ({@code --fs_data_dirs=...}). Each flag is declared here
 * once with its type, default and help; role defaults (ports) are applied by the server.
 */
public class ServerOptions {
  /** Where a listener binds when no flag names its address: loopback only. */
  public static final String DEFAULT_BIND_HOST = "127.0.0.1";

  @Option(names = "--server_name",
      description = "Name on log lines, pages and metrics (default: the RPC host:port).")
  public String serverName = "";

  @Option(names = "--fs_wal_dir",
      description = "Directory for the Raft logs and metadata (default: the first data dir).")
  public String fsWalDir = "";

  @Option(names = "--fs_data_dirs", split = ",",
      description = "Comma-separated data directories.")
  public List<String> fsDataDirs = new ArrayList<>();

  @Option(names = "--rpc_bind_addresses",
      description = "host:port the RPC server binds (default: 127.0.0.1, loopback only, on the "
          + "role's port). Say 0.0.0.0:PORT to listen on every interface.")
  public String rpcBindAddresses = "";

  @Option(names = "--rpc_advertised_addresses",
      description = "host:port clients use to reach this server's RPC when it differs from the "
          + "address peers use (e.g. a container's published port); the master hands it to "
          + "clients. Peers keep using the bind address (default: the bind address).")
  public String rpcAdvertisedAddresses = "";

  @Option(names = "--raft_bind_address",
      description = "host:port of the Raft (Ratis) listener (default: the RPC bind host, so "
          + "127.0.0.1 unless --rpc_bind_addresses says otherwise, on the role's Raft port).")
  public String raftBindAddress = "";

  @Option(names = "--webserver_interface",
      description = "Interface of the HTTP server (default: the RPC bind host, so 127.0.0.1 "
          + "unless --rpc_bind_addresses says otherwise).")
  public String webserverInterface = "";

  @Option(names = "--webserver_port", defaultValue = "-2",
      description = "Port of the HTTP server (default: the role's port; -1 = disabled, 0 = any).")
  public int webserverPort = -2;

  @Option(names = "--webserver_expose_tablet_ids", defaultValue = "false", arity = "0..1",
      fallbackValue = "true",
      description = "Serve the web pages that list tablet ids (a table's tablets, a tablet "
          + "server's replicas). The web UI has no authentication, so they answer 403 unless "
          + "this is set; home pages show counts only. Not changeable at run time. Default: "
          + "${DEFAULT-VALUE}.")
  public boolean webserverExposeTabletIds;

  @Option(names = "--webserver_tls", defaultValue = "false", arity = "0..1",
      fallbackValue = "true",
      description = "Serve the web UI (pages, /metrics, /healthz) over HTTPS only, presenting "
          + "this server's RPC certificate (--tls_cert_file, so --rpc_encryption must be on with "
          + "its files). Set it on every server of a cluster or on none: pages link to each "
          + "other keeping their own scheme. Not changeable at run time. Default: "
          + "${DEFAULT-VALUE}.")
  public boolean webserverTls;

  @Option(names = "--master_addresses",
      description = "Comma-separated RPC addresses of the masters.")
  public String masterAddresses = "";

  @Option(names = "--redact", defaultValue = "all",
      description = "Hide row keys and values in logs: 'all' (default) or 'none'.")
  public String redact = "all";

  @Option(names = "--encrypt_data_at_rest", defaultValue = "false",
      description = "Encrypt sensitive files (metadata, snapshots, WAL payloads). Fixed at "
          + "format time; not changeable at run time.")
  public boolean encryptDataAtRest = false;

  @Option(names = "--encryption_key_file", defaultValue = "",
      description = "Cluster key file (hex), created 0600 at first format if missing. NOT "
          + "secure: anyone who reads it can decrypt the cluster; use a KMS in production. "
          + "Required with --encrypt_data_at_rest; every server of a cluster needs the same key.")
  public String encryptionKeyFile = "";

  @Option(names = "--encryption_key_length", defaultValue = "256",
      description = "AES key length in bits for new keys: 128, 192 or 256. Not changeable at "
          + "run time.")
  public int encryptionKeyLength = 256;

  @Option(names = "--rpc_encryption", defaultValue = "optional",
      description = "TLS on Nyala's RPC and Raft traffic: 'disabled' (plaintext), 'optional' "
          + "(TLS when the three TLS file flags are given, else plaintext) or 'required' "
          + "(refuses to start without them). See docs/architecture.md, \"TLS on the wire\". "
          + "Not changeable at run time. Default: ${DEFAULT-VALUE}.")
  public String rpcEncryption = "optional";

  @Option(names = "--tls_cert_file", defaultValue = "",
      description = "PEM certificate this server presents (its own, optionally followed by the "
          + "CA's), issued by the --trusted_ca_file CA and naming every address the server is "
          + "reached at. Used when --rpc_encryption is not 'disabled'.")
  public String tlsCertFile = "";

  @Option(names = "--tls_key_file", defaultValue = "",
      description = "PEM (PKCS#8) private key of --tls_cert_file. Must be owner-only (mode "
          + "0600): a server refuses to start with a file group or others may read.")
  public String tlsKeyFile = "";

  @Option(names = "--trusted_ca_file", defaultValue = "",
      description = "PEM certificate of the CA that issued every server's certificate; servers "
          + "accept only peers it issued.")
  public String trustedCaFile = "";

  @Option(names = "--tls_certificate_request_timeout_ms", defaultValue = "120000",
      description = "With --trusted_ca_file but no --tls_cert_file/--tls_key_file: how long the "
          + "start waits for the leader master's CA to issue this server's certificate (ms); a "
          + "refusal ends it at once (docs/architecture.md, \"TLS and the internal CA\").")
  public long tlsCertificateRequestTimeoutMs = 120_000;

  @Option(names = "--rpc_authentication", defaultValue = "optional",
      description = "Who may call what on Nyala's RPC: 'disabled' (anyone calls anything), "
          + "'optional' (callers are identified, nothing refused) or 'required' (admin and "
          + "destructive RPCs need a server's certificate of --trusted_ca_file; needs TLS). "
          + "See docs/architecture.md, \"Who may call what\". Not changeable at run time. "
          + "Default: ${DEFAULT-VALUE}.")
  public String rpcAuthentication = "optional";

  @Option(names = "--rpc_num_service_threads", defaultValue = "16",
      description = "Threads serving RPCs.")
  public int rpcNumServiceThreads = 16;

  @Option(names = "--rpc_service_queue_length", defaultValue = "1000",
      description = "RPC calls admitted beyond the service threads (waiting for a thread or for "
          + "an answer); a call beyond that is answered SERVICE_UNAVAILABLE and retried by the "
          + "client. Default: ${DEFAULT-VALUE}.")
  public int rpcServiceQueueLength = io.nyala.common.rpc.RpcServer.DEFAULT_QUEUE_LENGTH;

  @Option(names = "--rpc_max_message_size", defaultValue = "67108864",
      description = "Largest RPC request read (bytes); a bigger one is refused and the client "
          + "gets INVALID_ARGUMENT. Default: ${DEFAULT-VALUE} (64 MiB).")
  public int rpcMaxMessageSize = io.nyala.common.rpc.RpcServer.DEFAULT_MAX_MESSAGE_BYTES;

  @Option(names = "--raft_election_timeout_min_ms", defaultValue = "1000",
      description = "Minimum Raft election timeout (ms).")
  public long raftElectionTimeoutMinMs = 1000;

  @Option(names = "--raft_election_timeout_max_ms", defaultValue = "2000",
      description = "Maximum Raft election timeout (ms).")
  public long raftElectionTimeoutMaxMs = 2000;

  @Option(names = "--unlock_unsafe_flags", defaultValue = "false", arity = "0..1",
      fallbackValue = "true",
      description = "Allow the flags meant for tests only (--fault_*), which withhold answers or "
          + "crash the server on purpose; without it a server given one refuses to start. Never "
          + "in production. Default: ${DEFAULT-VALUE}.")
  public boolean unlockUnsafeFlags;

  @Option(names = "--fault_disk_errors", split = ",",
      description = "UNSAFE, for tests only: KIND:OP:PATH[,...]; every write (OP=WRITE) or fsync "
          + "(OP=SYNC) of this server's files under PATH fails with KIND (EIO or ENOSPC) until "
          + "the server stops, e.g. EIO:SYNC:/data/1. Ratis' own WAL files are not affected "
          + "(docs/data-safety.md, \"Disk faults\"). Never set it in production. Default: none.")
  public List<String> faultDiskErrors = new ArrayList<>();

  @Option(names = "--fault_enable_network_partitions", defaultValue = "false", arity = "0..1",
      fallbackValue = "true",
      description = "Unsafe, for tests only: serve the FaultInjectionService, through which a "
          + "test harness cuts this server off from chosen servers (docs/testing.md, \"Network "
          + "partitions\"). Needs --unlock_unsafe_flags. Default: ${DEFAULT-VALUE}.")
  public boolean faultEnableNetworkPartitions;

  @Option(names = "--raft_property",
      description = "Unsafe, for experts: a raw Ratis property key=value (repeatable).")
  public Map<String, String> raftProperties = new LinkedHashMap<>();

  /**
   * Refuses a fault-injection flag ({@code --fault_*}, any role) set to other than its default
   * without {@code --unlock_unsafe_flags}: a test flag copied into production would lose answers
   * or crash the server on purpose.
   *
   * @throws NyalaException INVALID_ARGUMENT naming the first such flag
   */
  public void checkUnsafeFlags() {
    UnsafeFlags.check(this);
  }

  /**
   * The cluster key file. There is no default: a per-server default would give each server its
   * own "cluster" key and tablets could not move between them.
   */
  public Path encryptionKeyFile() {
    if (encryptionKeyFile.isEmpty()) {
      throw NyalaException.invalidArgument("--encrypt_data_at_rest needs --encryption_key_file "
          + "(the cluster key file shared by all servers)");
    }
    return Path.of(encryptionKeyFile);
  }

  /**
   * The TLS these flags ask for, with its files read and checked.
   *
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT naming a missing flag or a bad file
   */
  public WireTls wireTls() {
    return WireTls.fromFlags(rpcEncryption, tlsCertFile, tlsKeyFile, trustedCaFile);
  }

  /**
   * {@link #wireTls()} of a server of {@code role}. Given only {@code --trusted_ca_file}, a
   * server gets its certificate from the cluster's CA (docs/architecture.md, "TLS and the
   * internal CA"): a master holding the CA's key ({@link #tlsCaKeyFile()}) issues its own, any
   * other server asks the leader master, which needs the cluster key to prove membership.
   *
   * @throws NyalaException INVALID_ARGUMENT for a server that would ask without a cluster key
   */
  public WireTls wireTls(String role) {
    WireTls tls = wireTls();
    if (tls.awaitsCertificate() && tlsCaKeyFile().isBlank() && !encryptDataAtRest) {
      throw NyalaException.invalidArgument("--trusted_ca_file without --tls_cert_file and "
          + "--tls_key_file: this %s would ask the leader master's CA for its certificate, which "
          + "needs --encrypt_data_at_rest (the request proves membership with the cluster "
          + "key)%s; or give it its own ('nyala cert create-server')", role, role.equals("master")
          ? "; the first masters of a cluster issue their own with --tls_ca_key_file" : "");
    }
    return tls;
  }

  /** The CA key a master issues its own certificate with ({@code --tls_ca_key_file}), or "". */
  public String tlsCaKeyFile() {
    return "";
  }

  /**
   * The web server's HTTPS context under {@code --webserver_tls}, else null.
   *
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT when it is asked for without TLS
   */
  public SSLContext webTls(WireTls tls) {
    if (!webserverTls) {
      return null;
    }
    if (!tls.enabled()) {
      throw NyalaException.invalidArgument("--webserver_tls presents the server's RPC "
          + "certificate: set --rpc_encryption with --tls_cert_file, --tls_key_file and "
          + "--trusted_ca_file (--rpc_encryption=%s, no certificate loaded)", rpcEncryption);
    }
    return tls.httpsContext();
  }

  /**
   * Who may call what, checked against {@code tls}.
   *
   * @throws io.nyala.common.NyalaException INVALID_ARGUMENT for an unknown mode, or
   *     {@code required} without TLS
   */
  public RpcAuthentication rpcAuthentication(WireTls tls) {
    return RpcAuthentication.fromFlags(rpcAuthentication, tls.speaksTls());
  }

  /** The data dirs as paths; at least one is required. */
  public List<Path> dataDirs() {
    if (fsDataDirs.isEmpty() && fsWalDir.isEmpty()) {
      throw NyalaException.invalidArgument("--fs_data_dirs (or --fs_wal_dir) is required");
    }
    List<Path> out = new ArrayList<>();
    for (String d : fsDataDirs) {
      if (!d.isBlank()) {
        out.add(Path.of(d.trim()));
      }
    }
    if (out.isEmpty()) {
      out.add(walDir());
    }
    return out;
  }

  public Path walDir() {
    if (!fsWalDir.isEmpty()) {
      return Path.of(fsWalDir);
    }
    if (fsDataDirs.isEmpty()) {
      throw NyalaException.invalidArgument("--fs_data_dirs (or --fs_wal_dir) is required");
    }
    return Path.of(fsDataDirs.get(0).trim());
  }

  /**
   * The RPC bind address: loopback unless {@code --rpc_bind_addresses} says otherwise, so a
   * server nobody configured is not reachable from other hosts (docs/architecture.md,
   * "Listeners and addresses").
   */
  public HostPort rpcBind(int defaultPort) {
    return rpcBindAddresses.isEmpty()
        ? new HostPort(DEFAULT_BIND_HOST, defaultPort)
        : HostPort.parse(rpcBindAddresses.split(",")[0], defaultPort);
  }

  /** The address peers (masters, tablet servers) reach this server's RPC on. */
  public HostPort rpcAdvertised(HostPort bound) {
    return new HostPort(advertisableHost(bound.host()), bound.port());
  }

  /**
   * The address clients reach this server's RPC on, or null when it is the peers' one: clients
   * outside a container network need a published port (docs/architecture.md, "Listeners and
   * addresses").
   *
   * @throws NyalaException INVALID_ARGUMENT naming the value when its port is not a number
   */
  public HostPort rpcClientAddress(HostPort bound) {
    if (rpcAdvertisedAddresses.isBlank()) {
      return null;
    }
    return HostPort.parse(rpcAdvertisedAddresses.split(",")[0].trim(), bound.port());
  }

  public HostPort raftBind(int defaultPort, HostPort rpcBind) {
    return raftBindAddress.isEmpty()
        ? new HostPort(rpcBind.host(), defaultPort)
        : HostPort.parse(raftBindAddress, defaultPort);
  }

  /** The HTTP bind address, or null when disabled. */
  public HostPort webBind(int defaultPort, HostPort rpcBind) {
    int port = webserverPort == -2 ? defaultPort : webserverPort;
    if (port < 0) {
      return null;
    }
    return new HostPort(webserverInterface.isEmpty() ? rpcBind.host() : webserverInterface, port);
  }

  /**
   * The one WARN line a server logs when it listens on every interface, naming those
   * listeners, or null when every listener is bound to one interface.
   */
  static String wildcardWarning(String name, HostPort rpc, HostPort raft, HostPort web) {
    List<String> wild = new ArrayList<>();
    if (isWildcard(rpc.host())) {
      wild.add("RPC " + rpc);
    }
    if (isWildcard(raft.host())) {
      wild.add("Raft " + raft);
    }
    if (web != null && isWildcard(web.host())) {
      wild.add("HTTP " + web);
    }
    return wild.isEmpty() ? null : name + " listens on every interface (" + String.join(", ", wild)
        + "): anyone who reaches this host can call it; bind one address to limit that";
  }

  static boolean isWildcard(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
  }

  public List<HostPort> masters(int defaultPort) {
    return HostPort.parseList(masterAddresses, defaultPort);
  }

  /**
   * The host others are told to reach a listener on: its bind host, unless that is a wildcard
   * (then this machine's name). A loopback-bound server therefore advertises loopback.
   */
  static String advertisableHost(String host) {
    if (!isWildcard(host)) {
      return host;
    }
    try {
      return java.net.InetAddress.getLocalHost().getCanonicalHostName();
    } catch (java.net.UnknownHostException e) {
      return "127.0.0.1";
    }
  }
}
