package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import io.nyala.common.env.Env;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.proto.metadata.InstancePB;
import io.nyala.tserver.fs.log.LbmOptions;
import io.nyala.tserver.fs.log.LbmStartupBench;
import io.nyala.tserver.fs.log.LogBlockManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code bench lbm-startup} and {@code fs check}: the log block manager offline. */
final class LbmCommands {
  private LbmCommands() {}

  /** {@code nyala bench lbm-startup}. */
  @Command(name = "lbm-startup", mixinStandardHelpOptions = true,
      description = {
          "Builds a log block manager layout (1-byte blocks, shuffled per-batch "
              + "deletions), then times reopens with streaming and with in-memory metadata replay.",
          "Prints the median of each mode and the speedup."})
  static final class BenchLbmStartupCommand implements Callable<Integer> {
    @Option(names = "--batches", defaultValue = "500") int batches;
    @Option(names = "--blocks-per-batch", defaultValue = "1000") int blocksPerBatch;
    @Option(names = "--dirs", defaultValue = "8") int dirs;
    @Option(names = "--deleted-percent", defaultValue = "90") int deletedPercent;
    @Option(names = "--reopens", defaultValue = "5") int reopens;
    @Option(names = "--encrypt", description = "Encrypt the containers (AES-256-CTR).")
    boolean encrypt;
    @Option(names = "--max-blocks", defaultValue = "-1",
        description = "--log_container_max_blocks (-1 = unlimited).") long maxBlocks;
    @Option(names = "--work-dir", description = "Where to build (default: a temp dir, removed).")
    Path workDir;
    @Option(names = "--json", description = "Print one JSON object.") boolean json;

    @Override
    public Integer call() throws Exception {
      LbmStartupBench.Result r = ScratchRun.run(workDir, "lbm-bench", "creating blocks",
          (long) batches * blocksPerBatch, 1, (dir, done) -> LbmStartupBench.run(
              new LbmStartupBench.Params(batches, blocksPerBatch, dirs, deletedPercent, reopens,
                  encrypt, maxBlocks, dir), done));
      System.out.println(json ? toJson(r) : toText(r));
      return 0;
    }

    private String toText(LbmStartupBench.Result r) {
      return String.format("lbm-startup: %d batches x %d blocks, %d dirs, %d%% deleted, %s, "
          + "max-blocks %d%n"
          + "layout: %d containers, %d live blocks, %.1f MiB metadata (%.1f MiB when timed, "
          + "after startup compaction), %d holes punched, built in %.1f s%n"
          + "streaming: median %.0f ms %s%n"
          + "in-memory: median %.0f ms %s%n"
          + "speedup:   %.2fx", batches, blocksPerBatch, dirs, deletedPercent,
          encrypt ? "encrypted" : "plain", maxBlocks, r.containers(), r.liveBlocks(),
          r.metadataBytes() / 1048576.0, r.timedMetadataBytes() / 1048576.0, r.holesPunched(),
          r.buildSeconds(),
          r.streamingMedianMs(), Arrays.toString(r.streamingMs()), r.inMemoryMedianMs(),
          Arrays.toString(r.inMemoryMs()), r.speedup());
    }

    private String toJson(LbmStartupBench.Result r) {
      return String.format("{\"batches\":%d,\"blocks_per_batch\":%d,\"dirs\":%d,"
          + "\"deleted_percent\":%d,\"encrypt\":%b,\"max_blocks\":%d,\"containers\":%d,"
          + "\"live_blocks\":%d,\"metadata_bytes\":%d,\"timed_metadata_bytes\":%d,"
          + "\"holes_punched\":%d,"
          + "\"build_seconds\":%.3f,\"streaming_ms\":%s,\"inmem_ms\":%s,"
          + "\"streaming_median_ms\":%.1f,\"inmem_median_ms\":%.1f,\"speedup\":%.3f}",
          batches, blocksPerBatch, dirs, deletedPercent, encrypt, maxBlocks, r.containers(),
          r.liveBlocks(), r.metadataBytes(), r.timedMetadataBytes(), r.holesPunched(),
          r.buildSeconds(),
          Arrays.toString(r.streamingMs()).replace(" ", ""),
          Arrays.toString(r.inMemoryMs()).replace(" ", ""), r.streamingMedianMs(),
          r.inMemoryMedianMs(), r.speedup());
    }
  }

  /** {@code nyala fs check}. */
  @Command(name = "check", mixinStandardHelpOptions = true,
      description = "Replays the log block manager's containers and prints what was found "
          + "(containers, live blocks, bytes, damage); --repair also repairs it. Encrypted data"
          + " dirs need --encrypt_data_at_rest and the cluster key file, as the server does.")
  static final class FsCheckCommand implements Callable<Integer> {
    @Option(names = "--fs_data_dirs", split = ",", required = true,
        description = "The server's data dirs.")
    List<Path> dataDirs;

    @Option(names = "--fs_wal_dir",
        description = "The server's WAL dir (its instance file holds the wrapped server key); "
            + "default: the first data dir with an instance file.")
    Path walDir;

    @Option(names = "--encrypt_data_at_rest",
        description = "The server encrypts: decrypt with its server key.")
    boolean encrypt;

    @Option(names = "--encryption_key_file",
        description = "The cluster key file that wraps the server key.")
    Path keyFile;

    @Option(names = "--repair", description = "Repair what startup would repair.")
    boolean repair;

    @Override
    public Integer call() {
      LbmOptions o = LbmOptions.defaults(env(), dataDirs).withRepair(repair);
      try (LogBlockManager bm = LogBlockManager.open(o)) {
        System.out.print(bm.startupReport());
        return bm.startupReport().clean() ? 0 : 1;
      }
    }

    /** Plain, or encrypting with the server key, as the server's instance file says. */
    private Env env() {
      Path instance = instanceFile();
      InstancePB pb = instance == null ? null : ServerFs.readInstance(instance);
      boolean formattedEncrypted = pb != null && !pb.getWrappedServerKey().isEmpty();
      if (!encrypt) {
        if (formattedEncrypted) {
          throw NyalaException.invalidArgument("%s was formatted with encryption at rest: give "
              + "--encrypt_data_at_rest and --encryption_key_file (the cluster key file)",
              instance);
        }
        return Env.plain();
      }
      if (keyFile == null) {
        throw NyalaException.invalidArgument("--encrypt_data_at_rest needs "
            + "--encryption_key_file (the cluster key file that wraps the server key)");
      }
      if (pb == null) {
        throw NyalaException.notFound("no instance file in --fs_wal_dir %s or --fs_data_dirs %s:"
            + " cannot find the server key", walDir, dataDirs);
      }
      if (!formattedEncrypted) {
        throw NyalaException.invalidArgument("%s was formatted without encryption at rest: "
            + "drop --encrypt_data_at_rest", instance);
      }
      return MetadataFiles.serverEnv(instance, pb, keyFile);
    }

    private Path instanceFile() {
      if (walDir != null) {
        return walDir.resolve(ServerFs.INSTANCE);
      }
      return dataDirs.stream().map(d -> d.resolve(ServerFs.INSTANCE)).filter(Files::isRegularFile)
          .findFirst().orElse(null);
    }
  }

  static void deleteTree(Path dir) throws java.io.IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
