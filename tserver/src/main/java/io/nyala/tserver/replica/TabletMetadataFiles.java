package io.nyala.tserver.replica;

import com.google.protobuf.InvalidProtocolBufferException;
import io.nyala.common.NyalaException;
import io.nyala.common.env.DurableDirs;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.proto.metadata.TabletDataStatePB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.schema.Schema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each tablet's metadata file ({@code TabletMetadataPB}, one per tablet, named by its id, written
 * through {@link Env} as a sensitive file): reading it, replacing it atomically and durably, and
 * the data state it records (READY, DELETING, hibernated). Writers of a replica's metadata hold
 * the replica's monitor, so a write and the install of what it wrote are one step.
 */
final class TabletMetadataFiles {
  private static final Logger LOG = LoggerFactory.getLogger(TabletMetadataFiles.class);

  private final Path dir;
  private final Env env;

  TabletMetadataFiles(Path dir, Env env) {
    this.dir = dir;
    this.env = env;
  }

  Path dir() {
    return dir;
  }

  Path file(String tabletId) {
    return dir.resolve(tabletId);
  }

  /** Every metadata file (half-written {@code .tmp} ones aside), creating the dir if needed. */
  List<Path> list() throws IOException {
    DurableDirs.create(dir);
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> !p.getFileName().toString().endsWith(".tmp")).sorted().toList();
    }
  }

  /** The metadata in {@code f}, or CORRUPTION when it cannot be parsed. */
  TabletMetadataPB read(Path f) throws IOException {
    try {
      return TabletMetadataPB.parseFrom(env.readFile(f, OpenOptions.SENSITIVE));
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("tablet metadata %s is corrupt: %s", f, e.getMessage());
    }
  }

  /** Writes a new tablet's metadata durably (no replica exists yet). */
  void write(TabletMetadataPB meta) {
    env.replaceFile(file(meta.getTabletId()), meta.toByteArray(), OpenOptions.SENSITIVE);
  }

  /** Writes a replica's new metadata durably and installs it (caller holds the replica). */
  void persist(TabletReplica r, TabletMetadataPB next) {
    env.replaceFile(file(r.tabletId()), next.toByteArray(), OpenOptions.SENSITIVE);
    r.metadataPersisted(next);
  }

  /** Records that the replica is being deleted (caller holds the replica). */
  void persistDeleting(TabletReplica r) {
    persist(r, r.metadata().toBuilder().setDataState(TabletDataStatePB.TABLET_DATA_DELETING)
        .build());
  }

  /**
   * Persists a schema an applied ALTER_SCHEMA entry installed (and the new table name, unless
   * empty). Locks only the replica: it runs on the tablet's apply thread. Returns false, writing
   * nothing, for a version not newer than the persisted one or a replica being deleted.
   */
  boolean persistSchema(TabletReplica r, Schema schema, String newTableName) {
    synchronized (r) {
      TabletMetadataPB m = r.metadata();
      if (m.getDataState() != TabletDataStatePB.TABLET_DATA_READY
          || schema.version() <= m.getSchema().getVersion()) {
        return false;
      }
      TabletMetadataPB.Builder b = m.toBuilder().setSchema(schema.toPb());
      if (!m.hasInitialSchema()) {
        b.setInitialSchema(m.getSchema());
      }
      if (!newTableName.isEmpty()) {
        b.setTableName(newTableName);
      }
      persist(r, b.build());
      return true;
    }
  }

  /** Deletes a tablet's metadata file durably; a failure is logged, not thrown. */
  void delete(String tabletId) {
    deleteDurably(file(tabletId));
  }

  /** Deletes durably: the parent dir is synced, so a crash cannot bring the file back. */
  static void deleteDurably(Path p) {
    try {
      if (Files.deleteIfExists(p)) {
        DurableDirs.sync(p.getParent());
      }
    } catch (IOException | NyalaException e) {
      LOG.warn("cannot delete {}: {}", p, e.getMessage());
    }
  }
}
