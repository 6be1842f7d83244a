package io.nyala.tserver;

import io.nyala.common.NyalaException;
import io.nyala.common.server.ServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The tablet server's flags, on top of those every server takes. None may change at run time:
 * each is read once at start.
 */
@Command(name = "nyala-tserver", description = "Runs a Nyala tablet server.")
public class TserverOptions extends ServerOptions {
  @Option(names = "--help", usageHelp = true, description = "Show this help and exit.")
  public boolean help;

  @Option(names = "--heartbeat_interval_ms", defaultValue = "1000",
      description = "Interval between heartbeats to the leader master (ms). "
          + "Default: ${DEFAULT-VALUE}.")
  public long heartbeatIntervalMs = 1000;

  @Option(names = "--scanner_ttl_ms", defaultValue = "60000",
      description = "A scanner idle this long (ms) is expired and its snapshot released. "
          + "Default: ${DEFAULT-VALUE}.")
  public long scannerTtlMs = 60000;

  @Option(names = "--tablet_history_max_age_sec", defaultValue = "900",
      description = "Every replica keeps old row versions this long (seconds), so a scan can "
          + "resume on another replica at its snapshot after a failover or an expired scanner; "
          + "a snapshot older than this gets an error. Default: ${DEFAULT-VALUE} (15 min).")
  public long tabletHistoryMaxAgeSec = 900;

  @Option(names = "--scanner_default_batch_rows", defaultValue = "0",
      description = "Rows per scan page when the request does not say; 0: no cap, a page ends "
          + "by bytes only (the request's, else 1 MiB), as Kudu's do. Default: ${DEFAULT-VALUE}.")
  public int scannerDefaultBatchRows = 0;

  @Option(names = "--max_write_request_bytes", defaultValue = "245760",
      description = "Largest Write request accepted (bytes); clients split bigger batches. Every "
          + "awake tablet replica holds a direct write buffer of this size plus 16 KiB for the "
          + "Raft entry's header, so it bounds how many replicas can be awake in the JVM's "
          + "direct memory (docs/dense-nodes.md). At most 1 MiB - 16 KiB. "
          + "Default: ${DEFAULT-VALUE} (240 KiB).")
  public long maxWriteRequestBytes = DEFAULT_MAX_WRITE_REQUEST_BYTES;

  @Option(names = "--write_max_entries_in_flight", defaultValue = "8",
      description = "Raft entries of one tablet a leader has submitted and not yet applied "
          + "before it queues newcomers; each entry then carries every Write queued, up to "
          + "--max_write_request_bytes (docs/architecture.md, \"Write path\"). A lone write "
          + "never waits. Default: ${DEFAULT-VALUE}.")
  public int writeMaxEntriesInFlight = 8;

  /** Default of {@code --max_write_request_bytes}: 240 KiB. */
  public static final long DEFAULT_MAX_WRITE_REQUEST_BYTES = 240 << 10;
  /** Room a Raft entry needs around the Write request it carries (ids, term, framing). */
  public static final int RAFT_ENTRY_OVERHEAD_BYTES = 16 << 10;
  /** The largest Raft entry a tserver may be configured for: 1 MiB, what RaftSettings sets. */
  public static final long MAX_RAFT_ENTRY_BYTES = 1 << 20;

  @Option(names = "--block_manager", defaultValue = "log",
      description = "Block storage for tablet data: 'log' (containers of many blocks, the "
          + "default) or 'file' (one file per block). Default: ${DEFAULT-VALUE}.")
  public String blockManager = "log";

  @Option(names = "--log_container_preallocate_bytes", defaultValue = "33554432",
      description = "With --block_manager=log: space reserved ahead of a block container's "
          + "data each time it grows past its reserved end, so that appends do not fragment "
          + "(0 = off). Miniclusters use 1 MiB. Default: ${DEFAULT-VALUE}.")
  public long logContainerPreallocateBytes = 32L << 20;

  @Option(names = "--flush_threshold_mb", defaultValue = "64",
      description = "A tablet whose in-memory rows reach this size (MiB) is flushed to disk. "
          + "Default: ${DEFAULT-VALUE}.")
  public long flushThresholdMb = 64;

  @Option(names = "--flush_threshold_secs", defaultValue = "120",
      description = "A tablet holding unflushed rows this long (seconds) is flushed, so the "
          + "Raft log it keeps stays short. Default: ${DEFAULT-VALUE}.")
  public long flushThresholdSecs = 120;

  @Option(names = "--memory_limit_mb", defaultValue = "1024",
      description = "Above this much in-memory row data (MiB) across all tablets, the largest "
          + "tablets are flushed first until it is back under. Default: ${DEFAULT-VALUE}.")
  public long memoryLimitMb = 1024;

  @Option(names = "--enable_compaction", defaultValue = "true", arity = "0..1",
      fallbackValue = "true",
      description = "Whether the maintenance thread compacts tablets (merges small rowsets and "
          + "rowsets' delta layers); off, only flushes run, e.g. for a benchmark. "
          + "Default: ${DEFAULT-VALUE}.")
  public boolean enableCompaction = true;

  @Option(names = "--compaction_budget_mb", defaultValue = "128",
      description = "The most on-disk data (MiB) one compaction reads and rewrites, so a big "
          + "tablet is compacted piecewise, never all at once. Default: ${DEFAULT-VALUE}.")
  public long compactionBudgetMb = 128;

  @Option(names = "--maintenance_interval_ms", defaultValue = "250",
      description = "How often (ms) the maintenance thread checks flush and compaction "
          + "triggers. Default: ${DEFAULT-VALUE}.")
  public long maintenanceIntervalMs = 250;

  @Option(names = "--enable_maintenance_manager", defaultValue = "true", arity = "0..1",
      fallbackValue = "true",
      description = "Run the background maintenance thread (size, age and memory-limit flushes, "
          + "compactions). Off, tablets flush only when asked (tools, tests, benchmarks that "
          + "need a fixed number of layers) and never compact: not for production. "
          + "Default: ${DEFAULT-VALUE}.")
  public boolean enableMaintenanceManager = true;

  @Option(names = "--tablet_hibernate_after_ms", defaultValue = "30000",
      description = "A replica whose leader saw no write, scan, alter, copy or configuration "
          + "change for this long (ms), and whose group is caught up and flushed, is "
          + "hibernated: its Raft group closes and costs no thread until something needs it "
          + "(docs/dense-nodes.md). 0 = never hibernate. Default: ${DEFAULT-VALUE}.")
  public long tabletHibernateAfterMs = 30000;

  @Option(names = "--tablet_hibernate_on_stop_ms", defaultValue = "10000",
      description = "A clean stop (SIGTERM, a minicluster's stop) first hibernates every awake "
          + "replica whose group is quiet, without the idle period, so that the next start "
          + "opens no Raft group for it; this bounds that step (ms), after which the stop goes "
          + "on as before. 0 = off (quiet groups then restart awake). Has no effect with "
          + "--tablet_hibernate_after_ms=0. Read at stop. Default: ${DEFAULT-VALUE}, which "
          + "leaves 20 s of the minicluster's 30 s between SIGTERM and SIGKILL for the rest of "
          + "the stop (docs/dense-nodes.md).")
  public long tabletHibernateOnStopMs = 10000;

  @Option(names = "--tablet_copy_session_ttl_ms", defaultValue = "60000",
      description = "A tablet copy session served by this server and idle this long (ms) is "
          + "expired, releasing the image and the Raft log it pins. Default: ${DEFAULT-VALUE}.")
  public long tabletCopySessionTtlMs = 60000;

  @Option(names = "--orphan_block_gc_allow_mass_delete", defaultValue = "false", arity = "0..1",
      fallbackValue = "true",
      description = "Let the startup orphan-block GC delete blocks no superblock lists even when "
          + "they are more than 10% of the server's blocks (and more than 32); off, it keeps "
          + "them and logs what it would delete, since so many usually mean lost metadata, not "
          + "garbage. Set it for one restart once the metadata is known complete. It never "
          + "deletes when the tablet metadata dir is new or empty. Default: ${DEFAULT-VALUE}.")
  public boolean orphanBlockGcAllowMassDelete;

  @Option(names = "--fault_drop_write_response_after_commit", defaultValue = "false",
      description = "UNSAFE, for tests only: the first time this server would answer a "
          + "committed write that carries a client id, it sends no answer at all (the write "
          + "stays applied), so the client's attempt times out and it retries; a retry of the "
          + "same client id and sequence number is answered. Proves exactly-once writes. Never "
          + "set it in production. Default: ${DEFAULT-VALUE}.")
  public boolean faultDropWriteResponseAfterCommit;

  @Option(names = "--fault_crash_points", defaultValue = "",
      description = "UNSAFE, for tests only: <point>=<fraction>[,...]; each time this server "
          + "reaches a listed crash point it halts (exit status 86, no shutdown hooks) with that "
          + "probability (1 = always). Points: flush_before_superblock (flush blocks committed, "
          + "superblock not written), flush_after_superblock, compaction_before_release "
          + "(superblock written, replaced layers not released). Never set it in production, "
          + "nor in an in-process minicluster (the halt ends the whole JVM). Default: none.")
  public String faultCrashPoints = "";

  @Option(names = "--fault_tablet_copy_fetch_delay_ms", defaultValue = "0",
      description = "UNSAFE, for tests only: each tablet copy into this server waits this long "
          + "(ms) after its session begins and before it fetches anything, so a test can keep a "
          + "joining replica copying. Never set it in production. Default: ${DEFAULT-VALUE}.")
  public long faultTabletCopyFetchDelayMs;

  @Option(names = "--fault_tablet_open_delay_ms", defaultValue = "0",
      description = "UNSAFE, for tests only: each time Ratis opens a tablet replica's Raft group "
          + "here (create, start, wake) it first waits this long (ms), on Ratis' one thread that "
          + "adds groups, as a slow disk would make it. Never set it in production. Default: "
          + "${DEFAULT-VALUE}.")
  public long faultTabletOpenDelayMs;

  /**
   * Throws INVALID_ARGUMENT unless {@code --max_write_request_bytes} is positive and leaves room
   * for the Raft entry's header within {@link #MAX_RAFT_ENTRY_BYTES}, and
   * {@code --write_max_entries_in_flight} is positive.
   */
  public void checkMaxWriteRequestBytes() {
    long maxWrite = MAX_RAFT_ENTRY_BYTES - RAFT_ENTRY_OVERHEAD_BYTES;
    if (maxWriteRequestBytes < 1 || maxWriteRequestBytes > maxWrite) {
      throw NyalaException.invalidArgument("--max_write_request_bytes must be in [1, %d], got %d",
          maxWrite, maxWriteRequestBytes);
    }
    if (writeMaxEntriesInFlight < 1) {
      throw NyalaException.invalidArgument("--write_max_entries_in_flight must be >= 1, got %d",
          writeMaxEntriesInFlight);
    }
  }
}
