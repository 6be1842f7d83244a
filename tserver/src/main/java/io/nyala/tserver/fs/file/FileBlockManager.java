package io.nyala.tserver.fs.file;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenMode;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.env.RandomReadFile;
import io.nyala.common.env.WritableFile;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockIdAllocator;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.BlockManagerMetrics;
import io.nyala.tserver.fs.StartupReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One file per block at {@code <dir>/<h1>/<h2>/<id>} (two hex levels from the id's low bits,
 * so no directory grows huge). A block is written to {@code <id>.tmp} and renamed at commit
 * after its fsync, so a crash never leaves a block that looks complete but is not; startup
 * deletes leftover temp files. Appends go straight to the temp file: no block is held in memory. The block map ({@code sizes}) is guarded by {@code this}.
 */
public final class FileBlockManager implements BlockManager {
  private static final String TMP = ".tmp";
  private final Env env;
  private final List<Path> dirs;
  private final Map<Long, Long> sizes = new HashMap<>();
  private final BlockIdAllocator ids;
  private final StartupReport report;

  private FileBlockManager(Env env, List<Path> dirs) {
    this.env = env;
    this.dirs = List.copyOf(dirs);
    List<String> repairs = new ArrayList<>();
    long maxId = -1;
    for (Path d : dirs) {
      env.createDirs(d);
      maxId = Math.max(maxId, scan(d, repairs));
    }
    ids = new BlockIdAllocator(env, dirs.get(0), maxId);
    long bytes = sizes.values().stream().mapToLong(Long::longValue).sum();
    report = new StartupReport(0, sizes.size(), bytes, repairs, List.of());
  }

  /** Opens the block files under {@code dirs} (all through {@code env}, sensitive). */
  public static FileBlockManager open(Env env, List<Path> dirs) {
    return new FileBlockManager(env, dirs);
  }

  private long scan(Path root, List<String> repairs) {
    long maxId = -1;
    for (String h1 : env.listDir(root)) {
      Path d1 = root.resolve(h1);
      if (h1.length() != 2 || !java.nio.file.Files.isDirectory(d1)) {
        continue;
      }
      for (String h2 : env.listDir(d1)) {
        Path d2 = d1.resolve(h2);
        for (String n : env.listDir(d2)) {
          if (n.endsWith(TMP)) {
            env.deleteFile(d2.resolve(n));
            repairs.add(d2.resolve(n) + ": uncommitted block file: deleted");
            continue;
          }
          long id = Long.parseUnsignedLong(n, 16);
          try (RandomReadFile f = env.newRandomReadFile(d2.resolve(n), OpenOptions.SENSITIVE)) {
            sizes.put(id, f.size());
          }
          maxId = Math.max(maxId, id);
        }
      }
    }
    return maxId;
  }

  private Path pathOf(long id) {
    Path root = dirs.get((int) Long.remainderUnsigned(id, dirs.size()));
    return root.resolve(String.format("%02x", (id >>> 8) & 0xff))
        .resolve(String.format("%02x", id & 0xff)).resolve(String.format("%016x", id));
  }

  @Override
  public CreationTransaction newCreation() {
    return new Creation();
  }

  /**
   * Streams each block to its own {@code <id>.tmp} as it is appended; commit syncs each file,
   * renames it into place and syncs the touched directories once each. Closing without commit
   * deletes the temp files (their ids stay used). Not thread-safe, like the interface says.
   */
  private final class Creation implements CreationTransaction {
    /** Each block's open temp file, in creation order. */
    private final Map<BlockId, WritableFile> files = new LinkedHashMap<>();
    private final Set<Path> newDirs = new LinkedHashSet<>();
    private boolean done;

    @Override
    public WritableBlock create() {
      if (done) {
        throw NyalaException.illegalState("creation transaction already closed");
      }
      BlockId id = ids.next();
      Path p = pathOf(id.value());
      if (!env.exists(p.getParent())) {
        env.createDirs(p.getParent());
        newDirs.add(p.getParent().getParent());
        newDirs.add(p.getParent().getParent().getParent());
      }
      WritableFile w = env.newWritableFile(tmpOf(p), OpenOptions.SENSITIVE.withMode(
          OpenMode.CREATE_NEW));
      files.put(id, w);
      return new WritableBlock() {
        @Override
        public BlockId id() {
          return id;
        }

        @Override
        public void append(byte[] b, int off, int len) {
          w.append(b, off, len);
        }

        @Override
        public void finalizeBlock() {}
      };
    }

    @Override
    public List<BlockId> commit() {
      if (done) {
        throw NyalaException.illegalState("creation transaction already closed");
      }
      done = true;
      Set<Path> touched = new LinkedHashSet<>(newDirs);
      Map<Long, Long> committed = new LinkedHashMap<>();
      for (Map.Entry<BlockId, WritableFile> e : files.entrySet()) {
        WritableFile w = e.getValue();
        w.sync();
        committed.put(e.getKey().value(), w.size());
        w.close();
        Path p = pathOf(e.getKey().value());
        env.renameFile(w.path(), p);
        touched.add(p.getParent());
      }
      touched.forEach(env::syncDir);
      synchronized (FileBlockManager.this) {
        sizes.putAll(committed);
      }
      return List.copyOf(files.keySet());
    }

    @Override
    public void close() {
      if (!done) {
        done = true;
        for (WritableFile w : files.values()) {
          w.close();
          env.deleteFile(w.path());
        }
      }
    }
  }

  private static Path tmpOf(Path p) {
    return p.resolveSibling(p.getFileName() + TMP);
  }

  @Override
  public DeletionTransaction newDeletion() {
    List<BlockId> pending = new ArrayList<>();
    return new DeletionTransaction() {
      @Override
      public void add(BlockId id) {
        pending.add(id);
      }

      @Override
      public List<BlockId> commit() {
        Set<Path> touched = new LinkedHashSet<>();
        synchronized (FileBlockManager.this) {
          for (BlockId id : pending) {
            if (sizes.remove(id.value()) == null) {
              throw NyalaException.notFound("block %s not found", id);
            }
            env.deleteFile(pathOf(id.value()));
            touched.add(pathOf(id.value()).getParent());
          }
        }
        touched.forEach(env::syncDir);
        return List.copyOf(pending);
      }
    };
  }

  @Override
  public ReadableBlock openBlock(BlockId id) {
    long size;
    synchronized (this) {
      Long s = sizes.get(id.value());
      if (s == null) {
        throw NyalaException.notFound("block %s not found", id);
      }
      size = s;
    }
    Path p = pathOf(id.value());
    return new ReadableBlock() {
      @Override
      public BlockId id() {
        return id;
      }

      @Override
      public long size() {
        return size;
      }

      @Override
      public void read(long offset, byte[] b, int off, int len) {
        try (RandomReadFile f = env.newRandomReadFile(p, OpenOptions.SENSITIVE)) {
          f.readFully(offset, b, off, len);
        }
      }
    };
  }

  @Override
  public synchronized Set<BlockId> blockIds() {
    Set<BlockId> s = new HashSet<>();
    sizes.keySet().forEach(k -> s.add(new BlockId(k)));
    return s;
  }

  @Override
  public synchronized boolean contains(BlockId id) {
    return sizes.containsKey(id.value());
  }

  @Override
  public synchronized BlockManagerMetrics metrics() {
    long bytes = sizes.values().stream().mapToLong(Long::longValue).sum();
    return new BlockManagerMetrics(sizes.size(), bytes, 0, 0, 0, 0, 0);
  }

  @Override
  public StartupReport startupReport() {
    return report;
  }

  @Override
  public void close() {}
}
