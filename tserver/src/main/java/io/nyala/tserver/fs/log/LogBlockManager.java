package io.nyala.tserver.fs.log;

import io.nyala.common.NyalaException;
import io.nyala.tserver.fs.BlockId;
import io.nyala.tserver.fs.BlockIdAllocator;
import io.nyala.tserver.fs.BlockManager;
import io.nyala.tserver.fs.BlockManagerMetrics;
import io.nyala.tserver.fs.DataDirFailures;
import io.nyala.tserver.fs.StartupReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log block manager (docs/architecture.md, "Block managers"). All mutable state (block map,
 * containers) is guarded by {@code this}, except a container's data appends, which belong to the
 * one block holding it (see {@link Creation}). Commits sync data outside the lock and hold it
 * across the metadata appends and fsyncs, keeping the group-commit order: data fsync, CREATE
 * records, metadata fsync.
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
  private final HolePunchQueue puncher;
  private final AtomicLong bytesPreallocated = new AtomicLong();
  private long deadDeleted;
  private int nextDir;
  /** Dirs where a write or sync failed (docs/data-safety.md, "Disk faults"). */
  private final DataDirFailures dirFailures = new DataDirFailures();
  /** Containers whose metadata is corrupt: their blocks are not served (see ContainerLoader). */
  private final List<NyalaException> damaged = new ArrayList<>();

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
      damaged.addAll(l.damaged);
    }
    ids = new BlockIdAllocator(opts.env(), opts.dataDirs(), maxId);
    long bytes = blocks.values().stream().mapToLong(Loc::length).sum();
    report = new StartupReport(all.size(), blocks.size(), bytes, repairs, problems);
    puncher = new HolePunchQueue(this::isDeleted);
  }

  private void addLoaded(ContainerLoader.Loaded ld) {
    for (Map.Entry<Long, ContainerLoader.Extent> e : ld.blocks().entrySet()) {
      ContainerLoader.Extent ext = e.getValue();
      Loc prev = blocks.putIfAbsent(e.getKey(),
          new Loc(ld.container(), ext.offset(), ext.length()));
      if (prev != null) {
        throw NyalaException.corruption("block %016x: live in two containers: %s and %s",
            e.getKey(), prev.c(), ld.container());
      }
    }
  }

  /** Opens (creating missing dirs), replaying all containers with one thread per dir. */
  public static LogBlockManager open(LbmOptions opts) {
    List<ContainerLoader> loaders = ContainerLoader.loadAll(opts);
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

  /** A new block holding a container of its own until it is finalized. */
  synchronized Creation.Block acquire() {
    Container c = pickContainer();
    open.get(dirIndex(c)).remove(c);
    // Counted when placed, so a container never takes more than --log_container_max_blocks.
    c.created++;
    c.pendingBlocks++;
    return new Creation.Block(nextId(), this, c);
  }

  /** Streams bytes of a block to its container; no lock: the block holds the container. */
  void write(Creation.Block b, byte[] buf, int off, int len) {
    Container c = b.container;
    long at = b.offset + b.length;
    b.touchedEnd = Math.max(b.touchedEnd, at + len);
    bytesPreallocated.addAndGet(c.preallocateFor(at, at + len, opts.preallocateBytes()));
    dirFailures.run(c.dir, "block data write", () -> c.data().write(at, buf, off, len));
  }

  /** A finalized block gives its container back for the next block. */
  synchronized void release(Creation.Block b) {
    Container c = b.container;
    // Past all the block touched, so no keystream of this container is used twice
    // (docs/data-safety.md, "Keys and keystreams").
    c.nextOffset = c.alignUp(b.offset + b.touchedLength());
    if (!c.isFull(opts)) {
      open.get(dirIndex(c)).add(c);
    }
  }

  /**
   * Makes one transaction's finalized blocks durable and visible. Order per touched container:
   * data fsync (outside the lock: the bytes are already in place), CREATE records, metadata
   * fsync. One fsync of each kind per container however many blocks it got (group commit).
   */
  List<BlockId> commitBlocks(List<Creation.Block> created) {
    Map<Container, List<Creation.Block>> byContainer = new LinkedHashMap<>();
    for (Creation.Block b : created) {
      byContainer.computeIfAbsent(b.container, k -> new ArrayList<>()).add(b);
    }
    if (opts.dataFsync()) {
      byContainer.keySet().forEach(c -> dirFailures.run(c.dir, "block data sync",
          () -> c.data().sync()));
    }
    long ts = System.currentTimeMillis() * 1000;
    synchronized (this) {
      for (Map.Entry<Container, List<Creation.Block>> e : byContainer.entrySet()) {
        byte[] buf =
            new byte[e.getValue().size() * (RecordFormat.FRAME + RecordFormat.CREATE_SIZE)];
        int pos = 0;
        for (Creation.Block b : e.getValue()) {
          pos = RecordFormat.putCreate(buf, pos, b.id().value(), b.offset, b.length, ts);
        }
        appendRecords(e.getKey(), buf, pos);
      }
      List<BlockId> out = new ArrayList<>();
      for (Creation.Block b : created) {
        Container c = b.container;
        blocks.put(b.id().value(), new Loc(c, b.offset, b.length));
        c.liveBlocks++;
        c.liveBytes += b.length;
        c.pendingBlocks--;
        out.add(b.id());
      }
      return out;
    }
  }

  private void appendRecords(Container c, byte[] buf, int len) {
    dirFailures.run(c.dir, "metadata append", () -> c.appendRecords(buf, len));
  }

  /**
   * Forgets a transaction's blocks: no CREATE record is written, the ids stay used, and the
   * ranges already written are punched in the background like deleted blocks.
   */
  synchronized void abandon(List<Creation.Block> abandoned) {
    Map<Container, List<Loc>> freed = new LinkedHashMap<>();
    for (Creation.Block b : abandoned) {
      if (!b.finalized) {
        b.finalized = true;
        release(b);
      }
      Container c = b.container;
      c.pendingBlocks--;
      List<Loc> l = freed.computeIfAbsent(c, k -> new ArrayList<>());
      if (b.touchedLength() > 0) {
        l.add(new Loc(c, b.offset, b.touchedLength()));
      }
    }
    for (Map.Entry<Container, List<Loc>> e : freed.entrySet()) {
      if (!e.getValue().isEmpty()) {
        puncher.enqueue(e.getKey(), e.getValue());
      }
      deleteIfDead(e.getKey());
    }
  }

  /** A full container with no live and no pending blocks will never be read again. */
  private void deleteIfDead(Container c) {
    if (c.isFull(opts) && c.liveBlocks == 0 && c.pendingBlocks == 0 && !c.deleted) {
      c.deleteFiles();
      all.remove(c);
      deadDeleted++;
    }
  }

  private int dirIndex(Container c) {
    return opts.dataDirs().indexOf(c.dir);
  }

  /** Round-robin over healthy dirs so a transaction's fsyncs spread across disks. */
  private Container pickContainer() {
    int n = opts.dataDirs().size();
    int d = nextDir++ % n;
    for (int tries = 1; dirFailures.isFailed(opts.dataDirs().get(d)); tries++) {
      if (tries == n) {
        throw dirFailures.allFailed();
      }
      d = nextDir++ % n;
    }
    List<Container> avail = open.get(d);
    // A failed metadata append retires a container that may be waiting here.
    avail.removeIf(c -> c.isFull(opts));
    if (avail.isEmpty()) {
      Path dir = opts.dataDirs().get(d);
      String id;
      do {
        id = String.format("%016x", ThreadLocalRandom.current().nextLong());
      } while (opts.env().exists(dir.resolve(id + ".metadata")));
      String cid = id;
      Container c = dirFailures.call(dir, "container creation",
          () -> Container.create(opts.env(), dir, cid));
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
      appendRecords(e.getKey(), buf, pos);
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
        puncher.enqueue(c, freed);
      }
      deleteIfDead(c);
    }
    return List.copyOf(ids);
  }

  private synchronized boolean isDeleted(Container c) {
    return c.deleted;
  }

  /** Waits until every hole queued so far is punched. */
  public void awaitHolePunching() {
    puncher.await();
  }

  @Override
  public ReadableBlock openBlock(BlockId id) {
    Loc l;
    synchronized (this) {
      l = blocks.get(id.value());
    }
    if (l == null) {
      throw NyalaException.notFound("block %s not found%s", id, damaged.isEmpty() ? ""
          : " (it may be in a container whose metadata is corrupt: " + damagedFiles() + ")");
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

  /**
   * Why containers were not loaded: CORRUPTION naming each one's metadata file and offset. Their
   * blocks are not served; the tablets listing them go FAILED (docs/data-safety.md, "Damage is
   * contained").
   */
  public List<NyalaException> damagedContainers() {
    return List.copyOf(damaged);
  }

  private String damagedFiles() {
    return damaged.stream().map(NyalaException::detail).toList().toString();
  }

  @Override
  public synchronized Set<BlockId> blockIds() {
    Set<BlockId> s = new HashSet<>();
    blocks.keySet().forEach(k -> s.add(new BlockId(k)));
    return s;
  }

  @Override
  public synchronized boolean contains(BlockId id) {
    return blocks.containsKey(id.value());
  }

  @Override
  public synchronized BlockManagerMetrics metrics() {
    long bytes = 0;
    long full = 0;
    for (Container c : all) {
      bytes += c.liveBytes;
      full += c.isFull(opts) ? 1 : 0;
    }
    return new BlockManagerMetrics(blocks.size(), bytes, all.size(), full, puncher.holesPunched(),
        deadDeleted, bytesPreallocated.get(), dirFailures.failedCount(),
        dirFailures.noSpaceErrors());
  }

  /** The data dirs that failed at run time (see {@link DataDirFailures}). */
  public DataDirFailures dirFailures() {
    return dirFailures;
  }

  @Override
  public StartupReport startupReport() {
    return report;
  }

  @Override
  public void close() {
    puncher.close();
    synchronized (this) {
      all.forEach(Container::close);
    }
  }
}
