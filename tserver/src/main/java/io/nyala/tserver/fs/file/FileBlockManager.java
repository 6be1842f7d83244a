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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One file per block at {@code <dir>/<h1>/<h2>/<id>} (two hex levels from the id's low bits,
 * so no directory grows huge). A block is written to {@code <id>.tmp} and renamed at commit
 * after its fsync, so a crash never leaves a block that looks complete but is not; startup
 * deletes leftover temp files. Appends go straight to the temp file: no block is held in
 * memory. The block map ({@code sizes}) is guarded by {@code this}.
 *
 * <p>A block is read from the dir it was found in at startup, not from the one its id maps to
 * now, so adding or reordering {@code --fs_data_dirs} loses no block; names this manager did not
 * write are logged and left alone (see docs/data-safety.md, "File systems").
 */
public final class FileBlockManager implements BlockManager {
  private static final Logger LOG = LoggerFactory.getLogger(FileBlockManager.class);
  private static final String TMP = ".tmp";

  /** A live block: its size and the data dir holding it. */
  private record Stored(long size, Path root) {}

  private final Env env;
  private final List<Path> dirs;
  private final Map<Long, Stored> sizes = new HashMap<>();
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
    ids = new BlockIdAllocator(env, dirs, maxId);
    long bytes = sizes.values().stream().mapToLong(Stored::size).sum();
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
      if (!isFanOutDir(h1, d1)) {
        if (!h1.startsWith(BlockIdAllocator.FILE)) {
          LOG.warn("{}: not a block directory; left alone", d1);
        }
        continue;
      }
      for (String h2 : env.listDir(d1)) {
        Path d2 = d1.resolve(h2);
        if (!isFanOutDir(h2, d2)) {
          LOG.warn("{}: not a block directory; left alone", d2);
          continue;
        }
        for (String n : env.listDir(d2)) {
          maxId = Math.max(maxId, scanFile(root, d2, n, repairs));
        }
      }
    }
    return maxId;
  }

  /** The id of block file {@code n} (after loading it), or -1 for anything else. */
  private long scanFile(Path root, Path d2, String n, List<String> repairs) {
    boolean tmp = n.endsWith(TMP);
    String idPart = tmp ? n.substring(0, n.length() - TMP.length()) : n;
    if (!BlockId.isHexName(idPart, 16)) {
      LOG.warn("{}: not a block file; left alone", d2.resolve(n));
      return -1;
    }
    long id = Long.parseUnsignedLong(idPart, 16);
    if (tmp) {
      env.deleteFile(d2.resolve(n));
      repairs.add(d2.resolve(n) + ": uncommitted block file: deleted");
      return id;
    }
    try (RandomReadFile f = env.newRandomReadFile(d2.resolve(n), OpenOptions.SENSITIVE)) {
      Stored prev = sizes.putIfAbsent(id, new Stored(f.size(), root));
      if (prev != null) {
        throw NyalaException.corruption("block %s is in two data dirs: %s and %s",
            new BlockId(id), prev.root(), root);
      }
    }
    return id;
  }

  private static boolean isFanOutDir(String name, Path p) {
    return BlockId.isHexName(name, 2) && java.nio.file.Files.isDirectory(p);
  }

  /** The data dir a new block goes to: the one its id maps to. */
  private Path rootOf(long id) {
    return dirs.get((int) Long.remainderUnsigned(id, dirs.size()));
  }

  private Path pathOf(long id) {
    return pathIn(rootOf(id), id);
  }

  /** Where a live block is: the dir it was written to or found in. */
  private Path livePath(long id, Stored s) {
    return pathIn(s.root(), id);
  }

  private static Path pathIn(Path root, long id) {
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
      Map<Long, Stored> committed = new LinkedHashMap<>();
      for (Map.Entry<BlockId, WritableFile> e : files.entrySet()) {
        WritableFile w = e.getValue();
        w.sync();
        Path p = pathOf(e.getKey().value());
        committed.put(e.getKey().value(), new Stored(w.size(), rootOf(e.getKey().value())));
        w.close();
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
            Stored s = sizes.remove(id.value());
            if (s == null) {
              throw NyalaException.notFound("block %s not found", id);
            }
            Path p = livePath(id.value(), s);
            env.deleteFile(p);
            touched.add(p.getParent());
          }
        }
        touched.forEach(env::syncDir);
        return List.copyOf(pending);
      }
    };
  }

  @Override
  public ReadableBlock openBlock(BlockId id) {
    Stored s;
    synchronized (this) {
      s = sizes.get(id.value());
      if (s == null) {
        throw NyalaException.notFound("block %s not found", id);
      }
    }
    long size = s.size();
    Path p = livePath(id.value(), s);
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
    long bytes = sizes.values().stream().mapToLong(Stored::size).sum();
    return new BlockManagerMetrics(sizes.size(), bytes, 0, 0, 0, 0, 0, 0, 0);
  }

  @Override
  public StartupReport startupReport() {
    return report;
  }

  @Override
  public void close() {}
}
