package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.RandomReadFile;
import io.nyala.common.env.ReadWriteFile;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockIdAllocator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the containers of one data directory: replays each metadata file (streaming or from
 * one bulk read, by size), then repairs what a crash can leave. Runs on its own thread per
 * directory; touches nothing shared, so the manager merges its results afterwards.
 */
final class ContainerLoader {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerLoader.class);
  /** A replayed container and its live blocks: id → {offset, length, timestamp}. */
  record Loaded(Container container, Map<Long, Extent> blocks) {}

  /** Where a live block's bytes are in its container, and when it was created. */
  record Extent(long offset, long length, long timestamp) {}

  private final LbmOptions opts;
  private final Env env;
  final List<String> repairs = new ArrayList<>();
  final List<String> problems = new ArrayList<>();
  final List<Loaded> loaded = new ArrayList<>();
  /**
   * Containers whose metadata is corrupt (CORRUPTION naming file and offset): none of their
   * blocks is served, written or deleted, and their files are left for the operator.
   */
  final List<NyalaException> damaged = new ArrayList<>();
  long maxIdSeen = -1;

  ContainerLoader(LbmOptions opts) {
    this.opts = opts;
    this.env = opts.env();
  }

  /**
   * Loads every data directory (creating missing ones when repairing), one thread per
   * directory; returns one loader per directory, in the order of {@code opts.dataDirs()}.
   */
  static List<ContainerLoader> loadAll(LbmOptions opts) {
    List<ContainerLoader> loaders = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(opts.dataDirs().size());
    try {
      List<Future<?>> fs = new ArrayList<>();
      for (Path dir : opts.dataDirs()) {
        if (opts.repair()) {
          opts.env().createDirs(dir);
        }
        ContainerLoader l = new ContainerLoader(opts);
        loaders.add(l);
        fs.add(pool.submit(() -> l.loadDir(dir)));
      }
      for (Future<?> f : fs) {
        try {
          f.get();
        } catch (java.util.concurrent.ExecutionException e) {
          throw e.getCause() instanceof RuntimeException re ? re : NyalaException.from(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw NyalaException.ioError("interrupted while loading containers", e);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    return loaders;
  }

  void loadDir(Path dir) {
    List<String> names = env.listDir(dir);
    for (String n : names) {
      String id = containerId(n);
      if (id == null) {
        if (!n.startsWith(BlockIdAllocator.FILE)) {
          // Never deleted: a name we did not write is not ours to judge.
          LOG.warn("{}: not a container file; left alone", dir.resolve(n));
        }
      } else if (n.endsWith(".metadata")) {
        loadOne(dir, id, names.contains(id + ".data"));
      } else if (n.endsWith(MetadataCompactor.TMP_SUFFIX)) {
        repair(dir.resolve(n) + ": leftover of an interrupted compaction: deleted",
            () -> env.deleteFile(dir.resolve(n)));
      } else if (!names.contains(id + ".metadata")) {
        repair(dir.resolve(n) + ": data file without metadata (incomplete container): deleted",
            () -> env.deleteFile(dir.resolve(n)));
      }
    }
  }

  /** The container id of a container file's name ({@code <16 hex>.data|.metadata[.tmp]}). */
  private static String containerId(String name) {
    int dot = name.indexOf('.');
    if (dot != 16 || !BlockId.isHexName(name.substring(0, 16), 16)) {
      return null;
    }
    String ext = name.substring(dot);
    boolean ours = ext.equals(".data") || ext.equals(".metadata")
        || ext.equals(MetadataCompactor.TMP_SUFFIX);
    return ours ? name.substring(0, 16) : null;
  }

  /**
   * A container whose committed metadata is damaged: which blocks it holds is no longer known,
   * so none of them is trusted (the tablets that list them go FAILED when they open them and
   * are re-replicated) and nothing here is repaired or deleted (docs/data-safety.md, "Damage is
   * contained"). The rest of the server starts.
   */
  private void quarantine(Container c, NyalaException e) {
    c.close();
    damaged.add(e);
    problems.add(e.detail() + ": container " + c + " not trusted, none of its blocks is served");
  }

  private void repair(String what, Runnable action) {
    if (opts.repair()) {
      action.run();
      repairs.add(what);
    } else {
      problems.add(what.replace(": deleted", ": needs deletion")
          .replace(": truncated", ": needs truncation"));
    }
  }

  private void loadOne(Path dir, String id, boolean hasData) {
    int header = env.isEncrypting() ? Container.ENCRYPTION_HEADER : 0;
    Container c = new Container(env, dir, id, header);
    Map<Long, Extent> blocks = new HashMap<>();
    Path meta = c.metaPath();
    if (encryptionHeaderTorn(meta)) {
      repair(meta + ": encryption header torn (incomplete container): deleted", c::deleteFiles);
      return;
    }
    boolean complete;
    try (RandomReadFile f = env.newRandomReadFile(meta, OpenOptions.SENSITIVE)) {
      RecordSource src = f.size() <= opts.inmemReplayThresholdBytes()
          ? RecordSource.inMemory(f) : RecordSource.streaming(f);
      complete = RecordParser.checkHeader(src, meta);
      if (complete) {
        RecordParser.Result r = RecordParser.parse(src, meta,
            (b, off, len, pos) -> apply(c, blocks, b, off, len, pos));
        if (r.tailProblem() != null) {
          long end = r.validEnd();
          repair(meta + ": " + r.tailProblem() + ": truncated to " + end,
              () -> truncate(meta, end));
        }
      }
    } catch (NyalaException e) {
      if (e.code() != StatusCode.CORRUPTION) {
        throw e;
      }
      quarantine(c, e);
      return;
    }
    if (!complete) {
      repair(meta + ": metadata shorter than its header (incomplete container): deleted",
          c::deleteFiles);
      return;
    }
    if (!hasData) {
      if (blocks.isEmpty()) {
        repair(meta + ": metadata without data file and no live blocks: deleted", c::deleteFiles);
      } else {
        problems.add(meta + ": data file missing: " + blocks.size() + " live blocks lost");
      }
      return;
    }
    checkExtents(c, blocks);
    if (c.isFull(opts) && blocks.isEmpty()) {
      repair(c + ": full container with no live blocks: deleted", c::deleteFiles);
      return;
    }
    if (opts.repair() && c.isFull(opts) && blocks.size() * 2L <= c.created) {
      long records = c.created;
      MetadataCompactor.rewrite(env, c, blocks);
      repairs.add(String.format("%s: full and mostly dead (%d live of %d created): metadata "
          + "compacted", c, blocks.size(), records));
    }
    loaded.add(new Loaded(c, blocks));
  }

  /**
   * A crash while creating an encrypted file can leave less than its 64-byte header, which the
   * Env rightly calls corruption; for a container that is an incomplete creation. A plain stat,
   * not Env, because the question is about physical bytes.
   */
  private boolean encryptionHeaderTorn(Path meta) {
    if (!env.isEncrypting()) {
      return false;
    }
    try {
      return java.nio.file.Files.size(meta) < Container.ENCRYPTION_HEADER;
    } catch (java.io.IOException e) {
      throw NyalaException.ioError(meta + ": cannot stat: " + e, e);
    }
  }

  private void apply(Container c, Map<Long, Extent> blocks, byte[] b, int off, int len,
      long pos) {
    byte type = b[off];
    long id = RecordFormat.getLong(b, off + 1);
    maxIdSeen = Math.max(maxIdSeen, id);
    if (type == RecordFormat.CREATE && len == RecordFormat.CREATE_SIZE) {
      long offset = RecordFormat.getLong(b, off + 9);
      long length = RecordFormat.getLong(b, off + 17);
      c.created++;
      c.nextOffset = Math.max(c.nextOffset, c.alignUp(offset + length));
      long ts = RecordFormat.getLong(b, off + 25);
      if (blocks.putIfAbsent(id, new Extent(offset, length, ts)) != null) {
        problems.add(String.format("block %016x: duplicate CREATE in %s at offset %d", id,
            c.metaPath(), pos));
      }
    } else if (type == RecordFormat.DELETE && len == RecordFormat.DELETE_SIZE) {
      if (blocks.remove(id) == null) {
        problems.add(String.format("block %016x: DELETE without CREATE in %s at offset %d", id,
            c.metaPath(), pos));
      }
    } else {
      throw NyalaException.corruption("%s: unknown record type %d of %d bytes at offset %d",
          c.metaPath(), type, len, pos);
    }
  }

  /** A CREATE past the end of the data file names bytes that never reached the disk. */
  private void checkExtents(Container c, Map<Long, Extent> blocks) {
    long dataSize;
    try (RandomReadFile d = env.newRandomReadFile(c.dataPath(), OpenOptions.SENSITIVE)) {
      dataSize = d.size();
    }
    // Past every byte ever written, not just past the last CREATE: an abandoned or crashed
    // transaction's bytes (and a compacted-away block's) lie beyond it, and writing there again
    // would reuse their keystream (docs/data-safety.md, "Keys and keystreams"). Holes are
    // punched with KEEP_SIZE and the data file is never cut, so its size covers them all.
    c.nextOffset = Math.max(c.nextOffset, c.alignUp(dataSize));
    var it = blocks.entrySet().iterator();
    while (it.hasNext()) {
      var e = it.next();
      Extent ext = e.getValue();
      // An empty block needs no bytes: its aligned offset may lie past a short file's end.
      if (ext.length() > 0 && ext.offset() + ext.length() > dataSize) {
        problems.add(String.format("block %016x: CREATE beyond end of %s (offset %d, length %d,"
            + " file size %d): dropped", e.getKey(), c.dataPath(), ext.offset(), ext.length(),
            dataSize));
        it.remove();
      } else {
        c.liveBlocks++;
        c.liveBytes += ext.length();
      }
    }
  }

  /**
   * Drops a torn tail. Encrypted, the next appends would land on the torn bytes' offsets under
   * the same file key, so the valid prefix is copied to a new file (a new key) instead of cut.
   */
  private void truncate(Path meta, long end) {
    if (env.isEncrypting()) {
      byte[] valid;
      try (RandomReadFile f = env.newRandomReadFile(meta, OpenOptions.SENSITIVE)) {
        valid = f.readFully(0, Math.toIntExact(end));
      }
      MetadataCompactor.replace(env, meta, valid, valid.length);
      return;
    }
    try (ReadWriteFile f = env.newReadWriteFile(meta, OpenOptions.SENSITIVE.withMode(
        OpenMode.OPEN_EXISTING))) {
      f.truncate(end);
      f.sync();
    }
  }
}
