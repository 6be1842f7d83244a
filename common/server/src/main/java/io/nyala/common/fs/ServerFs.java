package io.nyala.common.fs;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.env.DiskFaults;
import io.nyala.common.env.Env;
import io.nyala.common.proto.metadata.InstancePB;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.WrappedKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's directories: the WAL dir (Raft logs, metadata) and the data dirs. Each holds an
 * {@code instance} file with the server's uuid; a first start formats them, later starts check
 * that they all belong to the same server.
 *
 * <p>With encryption at rest the format step also generates the server key and stores it,
 * wrapped by the cluster key, in the (plain) {@code instance} file; every later start unwraps it
 * and fails fast if the cluster key does not match. {@link #env()} is then the door for every
 * sensitive file of this server.
 *
 * <p>A start never adopts a dir without instance file while other dirs have one: that dir may be
 * a wiped, unmounted or mistyped one, and starting would take its emptiness for the truth (see
 * docs/data-safety.md, "File systems"). New dirs are added by {@link #addDataDirs}.
 */
public final class ServerFs {
  private static final Logger LOG = LoggerFactory.getLogger(ServerFs.class);
  public static final String INSTANCE = "instance";

  private final Path walDir;
  private final List<Path> dataDirs;
  /** Replaced whole when the server key is re-wrapped ({@link #rewrapServerKey}). */
  private volatile InstancePB instance;
  private final boolean formatted;
  /** The unwrapped server key, or null when this server does not encrypt. */
  private final KeyMaterial serverKey;
  private final Env env;
  /** Faults injected into {@link #env} (docs/data-safety.md, "Disk faults"); none by default. */
  private final DiskFaults diskFaults = new DiskFaults();

  private ServerFs(Path walDir, List<Path> dataDirs, InstancePB instance, boolean formatted,
      KeyMaterial serverKey) {
    this.walDir = walDir;
    this.dataDirs = dataDirs;
    this.instance = instance;
    this.formatted = formatted;
    this.serverKey = serverKey;
    this.env = serverKey == null ? Env.plain(diskFaults)
        : Env.encrypted(serverKey, instance.getServerKeyBits(), diskFaults);
  }

  /** Opens the directories of a server that does not encrypt, formatting them if needed. */
  public static ServerFs openOrFormat(Path walDir, List<Path> dataDirs, String serverType) {
    return openOrFormat(walDir, dataDirs, serverType, null, 0);
  }

  /**
   * Opens the directories, formatting them when none holds an instance file yet. With a
   * {@code keys} provider the server encrypts: formatting creates a {@code keyBits} server key;
   * opening unwraps it (CORRUPTION naming the instance file and the key source on a wrong
   * cluster key). A filesystem formatted with encryption cannot be opened without it, and the
   * reverse.
   */
  public static ServerFs openOrFormat(Path walDir, List<Path> dataDirs, String serverType,
      KeyProvider keys, int keyBits) {
    DirScan scan = DirScan.of(walDir, dataDirs, serverType);
    boolean formatted = scan.instances().isEmpty();
    InstancePB found;
    Path instanceFile;
    if (formatted) {
      found = newInstance(serverType, keys, keyBits);
      instanceFile = walDir.resolve(INSTANCE);
      LOG.info("formatting {} filesystem in {} (uuid {})", serverType, scan.all(), found.getUuid());
    } else {
      instanceFile = scan.instanceFile();
      found = scan.instances().get(instanceFile.getParent());
      if (!scan.missing().isEmpty()) {
        if (!scan.onlyInstanceFiles()) {
          throw scan.partial(walDir);
        }
        LOG.warn("finishing the interrupted format of the {} filesystem in {}: no dir holds "
            + "anything but its instance file yet", serverType, scan.all());
      }
    }
    for (Path d : formatted ? scan.all() : scan.missing()) {
      AtomicFiles.write(d.resolve(INSTANCE), found.toByteArray());
    }
    return new ServerFs(walDir, List.copyOf(dataDirs), found, formatted,
        serverKey(found, instanceFile, keys));
  }

  /**
   * Formats the dirs of {@code dataDirs} that hold no instance file yet with the instance of the
   * existing server (master or tablet server) whose WAL dir is {@code walDir}
   * ({@code nyala fs update_dirs}); returns them.
   * Refuses (INVALID_ARGUMENT) a WAL dir without instance, or a new dir that holds files: only an
   * empty or missing dir is new. With {@code keys} the server key is unwrapped first, so a wrong
   * cluster key fails before anything is written. The caller holds the {@link DirLock}.
   */
  public static List<Path> addDataDirs(Path walDir, List<Path> dataDirs, KeyProvider keys) {
    DirScan scan = DirScan.of(walDir, dataDirs, null);
    if (scan.instances().isEmpty()) {
      throw NyalaException.notFound("no dir of %s holds an instance file: there is no server "
          + "filesystem to add dirs to (a server's first start formats every dir)", scan.all());
    }
    if (scan.missing().contains(walDir)) {
      throw NyalaException.invalidArgument("the WAL dir %s holds no instance file: only data "
          + "dirs can be added. The WAL dir holds the tablet metadata and Raft logs; if it was "
          + "wiped they are lost: restore it, or remove every dir of this server and let the "
          + "cluster re-replicate its tablets", walDir);
    }
    Path instanceFile = walDir.resolve(INSTANCE);
    InstancePB pb = scan.instances().get(walDir);
    serverKey(pb, instanceFile, keys);
    for (Path d : scan.missing()) {
      if (!DirScan.holdsOnly(d, Set.of(DirLock.FILE))) {
        throw NyalaException.invalidArgument("%s holds files but no instance file: it is not a "
            + "new dir (a dir of another server, or one whose instance file was lost); give an "
            + "empty or missing dir", d);
      }
    }
    for (Path d : scan.missing()) {
      AtomicFiles.write(d.resolve(INSTANCE), pb.toByteArray());
      LOG.info("added {} to the {} filesystem of server {}", d, pb.getServerType(),
          pb.getUuid());
    }
    return scan.missing();
  }

  /** The WAL dir first, then each data dir not already listed. */
  public static List<Path> allDirs(Path walDir, List<Path> dataDirs) {
    List<Path> all = new ArrayList<>();
    all.add(walDir);
    for (Path d : dataDirs) {
      if (!all.contains(d)) {
        all.add(d);
      }
    }
    return all;
  }

  private static InstancePB newInstance(String serverType, KeyProvider keys, int keyBits) {
    InstancePB pb = InstancePB.newBuilder()
        .setUuid(RaftIds.newId())
        .setFormatStamp("Formatted by Nyala at " + java.time.Instant.now())
        .setCreatedTimeMillis(System.currentTimeMillis())
        .setServerType(serverType)
        .build();
    if (keys == null) {
      return pb;
    }
    WrappedKey w = keys.wrapServerKey(KeyMaterial.random(keyBits));
    return pb.toBuilder().setWrappedServerKey(com.google.protobuf.ByteString.copyFrom(w.wrapped()))
        .setServerKeyVersion(w.clusterKeyVersion()).setServerKeyBits(keyBits).build();
  }

  /**
   * The server key of {@code pb} unwrapped by {@code keys}, null without encryption;
   * INVALID_ARGUMENT when the instance and the flags disagree about encryption.
   */
  public static KeyMaterial serverKey(InstancePB pb, Path instanceFile, KeyProvider keys) {
    boolean hasKey = !pb.getWrappedServerKey().isEmpty();
    if (keys == null && hasKey) {
      throw NyalaException.invalidArgument("%s was formatted with encryption at rest; start the "
          + "server with --encrypt_data_at_rest and its --encryption_key_file", instanceFile);
    }
    if (keys != null && !hasKey) {
      throw NyalaException.invalidArgument("%s was formatted without encryption at rest; "
          + "--encrypt_data_at_rest cannot be turned on for an existing server", instanceFile);
    }
    if (keys == null) {
      return null;
    }
    WrappedKey w = new WrappedKey(pb.getServerKeyVersion(), pb.getWrappedServerKey().toByteArray());
    return keys.unwrapServerKey(w, "server key in instance file " + instanceFile);
  }

  /**
   * Wraps this server's key again under {@code keys}' current cluster key version, if the
   * instance files record an older one, and replaces the instance file of every dir with it
   * (each atomically: temp file, fsync, rename, directory fsync); returns the version they now
   * record (docs/encryption.md, "Rotating the cluster key"). The server key itself, and so
   * every file it encrypts, stays the same. A crash part way leaves some dirs at the old
   * version, which opens as long as the key file holds it; the next call finishes the job.
   */
  public synchronized int rewrapServerKey(KeyProvider keys) {
    if (serverKey == null) {
      throw NyalaException.illegalState("server %s does not encrypt: it has no server key to "
          + "re-wrap", uuid());
    }
    WrappedKey w = keys.wrapServerKey(serverKey);
    if (w.clusterKeyVersion() == instance.getServerKeyVersion()) {
      return w.clusterKeyVersion();
    }
    InstancePB next = instance.toBuilder()
        .setWrappedServerKey(com.google.protobuf.ByteString.copyFrom(w.wrapped()))
        .setServerKeyVersion(w.clusterKeyVersion()).build();
    for (Path d : allDirs(walDir, dataDirs)) {
      AtomicFiles.write(d.resolve(INSTANCE), next.toByteArray());
    }
    LOG.info("server key of {} re-wrapped under cluster key version {} (was {})", uuid(),
        w.clusterKeyVersion(), instance.getServerKeyVersion());
    instance = next;
    return w.clusterKeyVersion();
  }

  /** The cluster key version the instance files' server key is wrapped by; 0 if none. */
  public int serverKeyVersion() {
    return serverKey == null ? 0 : instance.getServerKeyVersion();
  }

  public static InstancePB readInstance(Path f) {
    try {
      return InstancePB.parseFrom(Files.readAllBytes(f));
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("instance file %s is corrupt: %s", f, e.getMessage());
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read " + f + ": " + e.getMessage(), e);
    }
  }

  /** The door for this server's sensitive files: encrypting iff the server encrypts. */
  public Env env() {
    return env;
  }

  /**
   * The disk faults {@link #env()} injects: tests (and the tserver's fault flag) add rules here
   * to make this server's writes or syncs under a dir fail (docs/data-safety.md, "Disk faults").
   */
  public DiskFaults diskFaults() {
    return diskFaults;
  }

  /** The server key, or null when the server does not encrypt. */
  public KeyMaterial serverKey() {
    return serverKey;
  }

  public String uuid() {
    return instance.getUuid();
  }

  public InstancePB instance() {
    return instance;
  }

  /** Whether this start formatted the directories. */
  public boolean formattedNow() {
    return formatted;
  }

  public Path walDir() {
    return walDir;
  }

  public List<Path> dataDirs() {
    return dataDirs;
  }

  /** Where Ratis keeps this server's logs and metadata. */
  public Path raftDir() {
    return walDir.resolve("raft");
  }
}
