package io.nyala.itests.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nyala.client.CreateTableOptions;
import io.nyala.client.NyalaClient;
import io.nyala.client.NyalaTable;
import io.nyala.common.schema.ColumnSchema;
import io.nyala.common.schema.Schema;
import io.nyala.common.schema.Type;
import io.nyala.minicluster.MiniCluster;
import io.nyala.minicluster.ProcessMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Jepsen-style: client threads run the set, register and bank workloads against a process-mode
 * cluster (1 master, 3 tablet servers, RF 3) while a seeded {@link Nemesis} kills, pauses and
 * restarts tablet servers, kills tablet leaders and moves leadership; then everything is healed,
 * every tablet gets back 3 live voters and a leader, and the checkers judge the history
 * (docs/testing.md, "Nemesis and checkers"). {@code -Dnemesis.seed=S} replays a schedule,
 * {@code -Dnemesis.minutes=N} runs longer (with
 * {@code -Djunit.jupiter.execution.timeout.mode=disabled}). A failure names the seed and the
 * file under {@code target/nemesis/} holding the whole history ({@code -Dnemesis.keepHistory=true}
 * writes it after a pass too).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class NemesisIT {
  private static final Duration DEFAULT_RUN = Duration.ofSeconds(45);
  private static final Duration HEAL_WAIT = Duration.ofSeconds(90);
  private static final String SET = "nemesis_set";
  private static final String REGISTER = "nemesis_register";
  private static final String BANK = "nemesis_bank";
  /** Where a failed run's history goes (the module's directory is the working directory). */
  private static final Path HISTORY_DIR = Path.of("target", "nemesis");

  @Test
  void historiesStayValidUnderFaults() throws Exception {
    long seed = Long.getLong("nemesis.seed", new Random().nextLong());
    Duration run = runDuration();
    System.out.printf("NemesisIT seed %d, %d s of workload (replay: -Dnemesis.seed=%d)%n",
        seed, run.toSeconds(), seed);
    try (MiniCluster cluster = MiniCluster.builder().processMode(ProcessMode.EXTERNAL)
            .numMasters(1).numTabletServers(3).tserverFlag("--heartbeat_interval_ms=300")
            .build();
        NyalaClient client = cluster.clientBuilder()
            .defaultOperationTimeoutMs(10_000).defaultRpcTimeoutMs(2_000).build()) {
      History history = new History();
      try {
        runAndJudge(cluster, client, history, seed, run);
      } catch (Exception e) {
        Path file = history.writeTo(HISTORY_DIR, "NemesisIT", seed, "failed: " + e);
        throw new AssertionError("NemesisIT seed " + seed + " failed; history in " + file, e);
      }
    }
  }

  private static void runAndJudge(MiniCluster cluster, NyalaClient client, History history,
      long seed, Duration run) throws Exception {
    NyalaTable setTable = client.createTable(SET, kv("key"), hashed("key", 3));
    NyalaTable regTable = client.createTable(REGISTER, kv("key"), hashed("key", 3));
    NyalaTable bankTable = client.createTable(BANK, kv("id"),
        new CreateTableOptions().setNumReplicas(3));
    SetWorkload set = new SetWorkload(client, setTable, history);
    RegisterWorkload register = new RegisterWorkload(client, regTable, history, 3);
    BankWorkload bank = new BankWorkload(client, bankTable, history, 5, 100);
    List<String> tablets = new ArrayList<>();
    for (String t : List.of(SET, REGISTER, BANK)) {
      cluster.tablets().awaitVoters(t, 3, HEAL_WAIT);
      tablets.addAll(cluster.tablets().tabletIds(t));
    }
    bank.init();

    Nemesis nemesis = new Nemesis(List.of(new KillTserverFault(cluster),
        new PauseTserverFault(cluster), new KillLeaderFault(cluster, tablets),
        new TransferLeaderFault(cluster, tablets), new PartitionFault(cluster, tablets)),
        history, seed,
        new Nemesis.Millis(1_000, 4_000), new Nemesis.Millis(2_000, 6_000));
    long end = System.nanoTime() + run.toNanos();
    BooleanSupplier stop = () -> System.nanoTime() - end >= 0;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    List<Future<?>> workers = new ArrayList<>();
    try {
      nemesis.start();
      workers.add(pool.submit(() -> set.run(0, stop)));
      workers.add(pool.submit(() -> set.run(1, stop)));
      for (int p = 2; p < 4; p++) {
        int process = p;
        Random r = new Random(seed + p);
        workers.add(pool.submit(() -> register.run(process, stop, r)));
      }
      workers.add(pool.submit(() -> bank.transfer(4, stop, new Random(seed + 4))));
      workers.add(pool.submit(() -> bank.read(5, stop)));
      for (Future<?> w : workers) {
        w.get(run.toSeconds() + 60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
      nemesis.stop();
    }

    for (String t : List.of(SET, REGISTER, BANK)) {
      cluster.tablets().awaitVoters(t, 3, HEAL_WAIT);
    }
    Set<Long> finalKeys = await("a final scan of " + SET).atMost(HEAL_WAIT)
        .ignoreExceptions().until(set::readAll, k -> true);
    bank.finalRead();
    judge(history, seed, run, nemesis, finalKeys, bank);
  }

  private static void judge(History history, long seed, Duration run, Nemesis nemesis,
      Set<Long> finalKeys, BankWorkload bank) {
    List<HistoryOp> events = history.events();
    SetChecker.Verdict setVerdict = SetChecker.check(events, finalKeys);
    List<RegisterChecker.KeyVerdict> registers = RegisterChecker.check(events);
    BankChecker.Verdict bankVerdict = BankChecker.check(events, bank.total());
    boolean valid = setVerdict.valid() && bankVerdict.valid()
        && registers.stream().allMatch(v -> Boolean.TRUE.equals(v.linearizable()));
    String summary = Summary.of(seed, run, events, nemesis.applied(), setVerdict, registers,
        bankVerdict, valid);
    System.out.println(summary);
    if (valid && Boolean.getBoolean("nemesis.keepHistory")) {
      System.out.println("history in " + history.writeTo(HISTORY_DIR, "NemesisIT", seed, summary));
    }
    if (!valid) {
      Path file = history.writeTo(HISTORY_DIR, "NemesisIT", seed, summary);
      assertThat(valid).as("NemesisIT seed %d: a checker failed; history in %s%n%s", seed, file,
          summary).isTrue();
    }
  }

  private static Duration runDuration() {
    String minutes = System.getProperty("nemesis.minutes");
    if (minutes == null || minutes.isBlank()) {
      return DEFAULT_RUN;
    }
    try {
      long m = Long.parseLong(minutes.trim());
      if (m < 1) {
        throw new NumberFormatException("below 1");
      }
      return Duration.ofMinutes(m);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-Dnemesis.minutes must be a whole number of minutes "
          + ">= 1, got '" + minutes + "'", e);
    }
  }

  private static Schema kv(String key) {
    return Schema.forTable(List.of(
        ColumnSchema.builder(key, Type.INT64).key(true).build(),
        ColumnSchema.builder(key.equals("id") ? "balance" : "val", Type.INT64).build()));
  }

  private static CreateTableOptions hashed(String column, int buckets) {
    return new CreateTableOptions().addHashPartitions(List.of(column), buckets)
        .setNumReplicas(3);
  }
}
