package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log block manager (DESIGN §6). All mutable state (block map, containers) is guarded by
 * {@code this}; commits hold the lock across their fsyncs, which serializes writers but keeps
 * the group-commit order simple: data fsync, CREATE records, metadata fsync.
 */
public final class LogBlockManager implements BlockManager {
  private static final Logger LOG = LoggerFactory.getLogger(LogBlockManager.class);

  /** Where a live block lives. */
  record Loc(Container c, long offset, long length) {}

  private final LbmOptions opts;
  private final Map<Long, Loc> blocks = new HashMap<>();
  /** Containers per data dir that still take blocks. */
  private final List<List<Container>> open = new ArrayList<>();
  private final List<Container> all = new ArrayList<>();
  private final BlockIdAllocator ids;
  private final StartupReport report;
  private final ExecutorService puncher;
  private final AtomicLong holesPunched = new AtomicLong();
  private final AtomicLong bytesPreallocated = new AtomicLong();
  private long deadDeleted;
  private int nextDir;

  private LogBlockManager(LbmOptions opts, List<ContainerLoader> loaders) {
    this.opts = opts;
    long maxId = -1;
    List<String> repairs = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (ContainerLoader l : loaders) {
      List<Container> dirOpen = new ArrayList<>();
      for (ContainerLoader.Loaded ld : l.loaded) {
        addLoaded(ld);
        all.add(ld.container());
        if (!ld.container().isFull(opts)) {
          dirOpen.add(ld.container());
        }
      }
      open.add(dirOpen);
      maxId = Math.max(maxId, l.maxIdSeen);
      repairs.addAll(l.repairs);
      problems.addAll(l.problems);
    }
    ids = new BlockIdAllocator(opts.env(), opts.dataDirs().get(0), maxId);
    long bytes = blocks.values().stream().mapToLong(Loc::length).sum();
    report = new StartupReport(all.size(), blocks.size(), bytes, repairs, problems);
    puncher = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "lbm-hole-puncher");
      t.setDaemon(true);
      return t;
    });
  }

  private void addLoaded(ContainerLoader.Loaded ld) {
    for (Map.Entry<Long, long[]> e : ld.blocks().entrySet()) {
      long[] ext = e.getValue();
      Loc prev = blocks.putIfAbsent(e.getKey(), new Loc(ld.container(), ext[0], ext[1]));
      if (prev != null) {
        throw NyalaException.corruption("block %016x: live in two containers: %s and %s",
            e.getKey(), prev.c(), ld.container());
      }
    }
  }

  /** Opens (creating missing dirs), replaying all containers with one thread per dir. */
  public static LogBlockManager open(LbmOptions opts) {
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
          throw e.getCause() instanceof RuntimeException re ? re : new RuntimeException(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw NyalaException.ioError("interrupted while loading containers", e);
        }
      }
    } finally {
      pool.shutdownNow();
    }
    LogBlockManager m = new LogBlockManager(opts, loaders);
    if (!m.report.clean()) {
      LOG.warn("log block manager startup:\n{}", m.report);
    }
    return m;
  }

  @Override
  public CreationTransaction newCreation() {
    return new Creation(this);
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
        return delete(pending);
      }
    };
  }

  BlockId nextId() {
    return ids.next();
  }

  /** Writes the finalized blocks of one transaction; see the class comment for the order. */
  synchronized List<BlockId> commitBlocks(List<Creation.Block> created) {
    Map<Container, byte[]> records = new LinkedHashMap<>();
    Map<Container, Integer> recLen = new HashMap<>();
    List<Loc> locs = new ArrayList<>();
    long ts = System.currentTimeMillis() * 1000;
    for (Creation.Block b : created) {
      Container c = pickContainer();
      byte[] data = b.bytes();
      long off = c.nextOffset;
      if (data.length > 0) {
        bytesPreallocated.addAndGet(c.preallocateFor(off, off + data.length,
            opts.preallocateBytes()));
        c.data().write(off, data);
      }
      c.nextOffset = c.alignUp(off + data.length);
      c.created++;
      locs.add(new Loc(c, off, data.length));
      byte[] buf = records.computeIfAbsent(c, k -> new byte[0]);
      int pos = recLen.getOrDefault(c, 0);
      if (buf.length < pos + RecordFormat.FRAME + RecordFormat.CREATE_SIZE) {
        buf = java.util.Arrays.copyOf(buf, Math.max(64, buf.length * 2));
        records.put(c, buf);
      }
      recLen.put(c, RecordFormat.putCreate(buf, pos, b.id().value(), off, data.length, ts));
      if (c.isFull(opts)) {
        open.get(dirIndex(c)).remove(c);
      }
    }
    for (Container c : records.keySet()) {
      if (opts.dataFsync()) {
        c.data().sync();
      }
    }
    for (Map.Entry<Container, byte[]> e : records.entrySet()) {
      e.getKey().meta().append(e.getValue(), 0, recLen.get(e.getKey()));
      e.getKey().meta().sync();
    }
    List<BlockId> out = new ArrayList<>();
    for (int i = 0; i < created.size(); i++) {
      Loc l = locs.get(i);
      blocks.put(created.get(i).id().value(), l);
      l.c().liveBlocks++;
      l.c().liveBytes += l.length();
      out.add(created.get(i).id());
    }
    return out;
  }

  private int dirIndex(Container c) {
    return opts.dataDirs().indexOf(c.dir);
  }

  /** Round-robin over dirs so a transaction's fsyncs spread across disks. */
  private Container pickContainer() {
    int d = nextDir++ % opts.dataDirs().size();
    List<Container> avail = open.get(d);
    if (avail.isEmpty()) {
      Path dir = opts.dataDirs().get(d);
      String id;
      do {
        id = String.format("%016x", ThreadLocalRandom.current().nextLong());
      } while (opts.env().exists(dir.resolve(id + ".metadata")));
      Container c = Container.create(opts.env(), dir, id);
      all.add(c);
      avail.add(c);
    }
    return avail.get(0);
  }

  private synchronized List<BlockId> delete(List<BlockId> ids) {
    Map<Container, List<Long>> byContainer = new LinkedHashMap<>();
    for (BlockId id : ids) {
      Loc l = blocks.get(id.value());
      if (l == null) {
        throw NyalaException.notFound("block %s not found", id);
      }
      byContainer.computeIfAbsent(l.c(), k -> new ArrayList<>()).add(id.value());
    }
    for (Map.Entry<Container, List<Long>> e : byContainer.entrySet()) {
      byte[] buf = new byte[e.getValue().size() * (RecordFormat.FRAME + RecordFormat.DELETE_SIZE)];
      int pos = 0;
      for (long id : e.getValue()) {
        pos = RecordFormat.putDelete(buf, pos, id);
      }
      e.getKey().meta().append(buf, 0, pos);
      e.getKey().meta().sync();
    }
    for (Map.Entry<Container, List<Long>> e : byContainer.entrySet()) {
      Container c = e.getKey();
      List<Loc> freed = new ArrayList<>();
      for (long id : e.getValue()) {
        Loc l = blocks.remove(id);
        c.liveBlocks--;
        c.liveBytes -= l.length();
        if (l.length() > 0) {
          freed.add(l);
        }
      }
      if (!freed.isEmpty()) {
        puncher.execute(() -> punch(c, freed));
      }
      if (c.isFull(opts) && c.liveBlocks == 0) {
        c.deleteFiles();
        all.remove(c);
        deadDeleted++;
      }
    }
    return List.copyOf(ids);
  }

  /**
   * Punches the freed ranges of one deletion in one container, merging neighbours: a batch
   * that frees a run of blocks costs one fallocate, not one per block.
   */
  private void punch(Container c, List<Loc> freed) {
    synchronized (this) {
      if (c.deleted) {
        return;
      }
    }
    freed.sort(java.util.Comparator.comparingLong(Loc::offset));
    List<long[]> ranges = new ArrayList<>();
    long[] cur = null;
    for (Loc l : freed) {
      long end = c.alignUp(l.offset() + l.length());
      if (cur != null && cur[0] + cur[1] == l.offset() + c.headerBytes) {
        cur[1] = end + c.headerBytes - cur[0];
        cur[2]++;
      } else {
        cur = new long[] {l.offset() + c.headerBytes, end - l.offset(), 1};
        ranges.add(cur);
      }
    }
    holesPunched.addAndGet(HolePuncher.punch(c.dataPath(), ranges));
  }

  /** Waits until every hole queued so far is punched. */
  public void awaitHolePunching() {
    try {
      puncher.submit(() -> { }).get();
    } catch (Exception e) {
      throw new IllegalStateException("hole punching failed", e);
    }
  }

  @Override
  public ReadableBlock openBlock(BlockId id) {
    Loc l;
    synchronized (this) {
      l = blocks.get(id.value());
    }
    if (l == null) {
      throw NyalaException.notFound("block %s not found", id);
    }
    return new ReadableBlock() {
      @Override
      public BlockId id() {
        return id;
      }

      @Override
      public long size() {
        return l.length();
      }

      @Override
      public void read(long offset, byte[] b, int off, int len) {
        if (offset < 0 || offset + len > l.length()) {
          throw NyalaException.invalidArgument("block %s: read [%d, %d) beyond its %d bytes", id,
              offset, offset + len, l.length());
        }
        l.c().data().readFully(l.offset() + offset, b, off, len);
      }
    };
  }

  @Override
  public synchronized Set<BlockId> blockIds() {
    Set<BlockId> s = new HashSet<>();
    blocks.keySet().forEach(k -> s.add(new BlockId(k)));
    return s;
  }

  @Override
  public synchronized BlockManagerMetrics metrics() {
    long bytes = 0;
    long full = 0;
    for (Container c : all) {
      bytes += c.liveBytes;
      full += c.isFull(opts) ? 1 : 0;
    }
    return new BlockManagerMetrics(blocks.size(), bytes, all.size(), full, holesPunched.get(),
        deadDeleted, bytesPreallocated.get());
  }

  @Override
  public StartupReport startupReport() {
    return report;
  }

  @Override
  public void close() {
    puncher.shutdown();
    try {
      puncher.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      all.forEach(Container::close);
    }
  }
}
