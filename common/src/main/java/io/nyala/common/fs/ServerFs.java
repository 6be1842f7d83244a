package io.nyala.common.fs;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.consensus.RaftIds;
import io.nyala.common.proto.metadata.InstancePB;
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
 */
public final class ServerFs {
  private static final Logger LOG = LoggerFactory.getLogger(ServerFs.class);
  public static final String INSTANCE = "instance";

  private final Path walDir;
  private final List<Path> dataDirs;
  private final InstancePB instance;
  private final boolean formatted;

  private ServerFs(Path walDir, List<Path> dataDirs, InstancePB instance, boolean formatted) {
    this.walDir = walDir;
    this.dataDirs = dataDirs;
    this.instance = instance;
    this.formatted = formatted;
  }

  /** Opens the directories, formatting them when none holds an instance file yet. */
  public static ServerFs openOrFormat(Path walDir, List<Path> dataDirs, String serverType) {
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
    return new ServerFs(walDir, List.copyOf(dataDirs), found, formatted);
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
