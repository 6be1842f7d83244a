package io.nyala.common.fs;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
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
 */
public final class ServerFs {
  private static final Logger LOG = LoggerFactory.getLogger(ServerFs.class);
  public static final String INSTANCE = "instance";

  private final Path walDir;
  private final List<Path> dataDirs;
  private final InstancePB instance;
  private final boolean formatted;
  /** The unwrapped server key, or null when this server does not encrypt. */
  private final KeyMaterial serverKey;
  private final Env env;

  private ServerFs(Path walDir, List<Path> dataDirs, InstancePB instance, boolean formatted,
      KeyMaterial serverKey) {
    this.walDir = walDir;
    this.dataDirs = dataDirs;
    this.instance = instance;
    this.formatted = formatted;
    this.serverKey = serverKey;
    this.env = serverKey == null ? Env.plain()
        : Env.encrypted(serverKey, instance.getServerKeyBits());
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
    List<Path> all = new ArrayList<>();
    all.add(walDir);
    for (Path d : dataDirs) {
      if (!all.contains(d)) {
        all.add(d);
      }
    }
    InstancePB found = null;
    Path foundIn = null;
    for (Path d : all) {
      Path f = d.resolve(INSTANCE);
      if (Files.exists(f)) {
        InstancePB pb = readInstance(f);
        if (found != null && !found.getUuid().equals(pb.getUuid())) {
          throw NyalaException.corruption("%s belongs to server %s but %s to server %s",
              f, pb.getUuid(), foundIn, found.getUuid());
        }
        if (!pb.getServerType().equals(serverType)) {
          throw NyalaException.invalidArgument("%s belongs to a %s, not a %s",
              f, pb.getServerType(), serverType);
        }
        found = pb;
        foundIn = f;
      }
    }
    boolean formatted = found == null;
    if (formatted) {
      found = InstancePB.newBuilder()
          .setUuid(RaftIds.newId())
          .setFormatStamp("Formatted by Nyala at " + java.time.Instant.now())
          .setCreatedTimeMillis(System.currentTimeMillis())
          .setServerType(serverType)
          .build();
      if (keys != null) {
        WrappedKey w = keys.wrapServerKey(KeyMaterial.random(keyBits));
        found = found.toBuilder().setWrappedServerKey(
                com.google.protobuf.ByteString.copyFrom(w.wrapped()))
            .setServerKeyVersion(w.clusterKeyVersion()).setServerKeyBits(keyBits).build();
      }
      LOG.info("formatting {} filesystem in {} (uuid {})", serverType, all, found.getUuid());
    }
    for (Path d : all) {
      try {
        Files.createDirectories(d);
      } catch (IOException e) {
        throw NyalaException.ioError("cannot create directory " + d + ": " + e.getMessage(), e);
      }
      if (!Files.exists(d.resolve(INSTANCE))) {
        AtomicFiles.write(d.resolve(INSTANCE), found.toByteArray());
      }
    }
    Path instanceFile = foundIn != null ? foundIn : walDir.resolve(INSTANCE);
    return new ServerFs(walDir, List.copyOf(dataDirs), found, formatted,
        serverKey(found, instanceFile, keys));
  }

  private static KeyMaterial serverKey(InstancePB pb, Path instanceFile, KeyProvider keys) {
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
