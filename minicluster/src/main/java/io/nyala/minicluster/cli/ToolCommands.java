package io.nyala.minicluster.cli;

import io.nyala.common.fs.ServerFs;
import io.nyala.common.security.CryptoBench;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Offline tools on a server's files ({@code pbc}, {@code fs}) and {@code bench}. */
final class ToolCommands {
  private ToolCommands() {}

  /** {@code nyala pbc}: protobuf record files. */
  @Command(name = "pbc", mixinStandardHelpOptions = true,
      description = "Protobuf record files of a server.", subcommands = {PbcDumpCommand.class})
  static final class PbcCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(System.out);
    }
  }

  /** {@code nyala pbc dump <file>}. */
  @Command(name = "dump", mixinStandardHelpOptions = true,
      description = {"Prints an instance file, a tablet metadata file or a sys catalog snapshot.",
          "An encrypted file is decrypted with its server's key, which needs the cluster key "
              + "file and the server's instance file (found above the file unless given)."})
  static final class PbcDumpCommand implements Callable<Integer> {
    @Parameters(index = "0", description = "The file.")
    Path file;

    @Option(names = "--json", description = "Print JSON instead of protobuf text format.")
    boolean json;

    @Option(names = "--fs_wal_dir", description = "The server's WAL dir (holds its instance).")
    Path walDir;

    @Option(names = "--fs_data_dirs", split = ",",
        description = "The server's data dirs; the first one's instance is used.")
    List<Path> dataDirs = new ArrayList<>();

    @Option(names = "--encryption_key_file", description = "The cluster key file.")
    Path keyFile;

    @Override
    public Integer call() {
      Path instance = walDir != null ? walDir.resolve(ServerFs.INSTANCE)
          : dataDirs.isEmpty() ? null : dataDirs.get(0).resolve(ServerFs.INSTANCE);
      boolean encrypted = MetadataFiles.isEncrypted(file);
      byte[] content = MetadataFiles.read(file, instance, keyFile);
      System.out.println("# " + file + " (" + (encrypted ? "encrypted" : "plain") + ")");
      System.out.println(MetadataFiles.format(MetadataFiles.decode(file, content), json));
      return 0;
    }
  }

  /** {@code nyala fs}: a server's directories. */
  @Command(name = "fs", mixinStandardHelpOptions = true,
      description = "A server's directories.", subcommands = {DumpInstanceCommand.class,
          LbmCommands.FsCheckCommand.class, FsUpdateDirsCommand.class})
  static final class FsCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(System.out);
    }
  }

  /** {@code nyala fs dump-instance}. */
  @Command(name = "dump-instance", mixinStandardHelpOptions = true,
      description = "Prints the instance file of each of a server's directories (never "
          + "encrypted; holds the uuid and the wrapped server key).")
  static final class DumpInstanceCommand implements Callable<Integer> {
    @Option(names = "--fs_wal_dir", description = "The server's WAL dir.")
    Path walDir;

    @Option(names = "--fs_data_dirs", split = ",", description = "The server's data dirs.")
    List<Path> dataDirs = new ArrayList<>();

    @Option(names = "--json", description = "Print JSON instead of protobuf text format.")
    boolean json;

    @Override
    public Integer call() {
      List<Path> dirs = new ArrayList<>();
      if (walDir != null) {
        dirs.add(walDir);
      }
      dirs.addAll(dataDirs);
      if (dirs.isEmpty()) {
        throw new CommandLine.ParameterException(new CommandLine(this),
            "give --fs_wal_dir and/or --fs_data_dirs");
      }
      for (Path d : dirs) {
        Path f = d.resolve(ServerFs.INSTANCE);
        System.out.println("# " + f);
        if (!Files.exists(f)) {
          System.out.println("(no instance file)");
          continue;
        }
        System.out.println(MetadataFiles.format(ServerFs.readInstance(f), json));
      }
      return 0;
    }
  }

  /** {@code nyala bench}: micro-benchmarks that print figures. */
  @Command(name = "bench", mixinStandardHelpOptions = true,
      description = "Micro-benchmarks.", subcommands = {BenchCryptoCommand.class,
          LbmCommands.BenchLbmStartupCommand.class, TserverBenchCommands.WalAppendCommand.class,
          TserverBenchCommands.WritePathCommand.class,
          TserverBenchCommands.DeleteTabletCommand.class, BenchTableLocationsCommand.class,
          BenchMiniclusterStartCommand.class,
          DenseNodeCommand.class})
  static final class BenchCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(System.out);
    }
  }

  /** {@code nyala bench crypto}. */
  @Command(name = "crypto", mixinStandardHelpOptions = true,
      description = "MB/s of AES-CTR encrypt+decrypt, JCE and Bouncy Castle, 4 KiB and 1 MiB "
          + "chunks, 128- and 256-bit keys.")
  static final class BenchCryptoCommand implements Callable<Integer> {
    @Option(names = "--millis-per-case", defaultValue = "1000",
        description = "Measuring time of each case after its warm-up (default 1000).")
    long millisPerCase;

    @Override
    public Integer call() {
      CryptoBench.run(System.out, Duration.ofMillis(millisPerCase));
      return 0;
    }
  }
}
