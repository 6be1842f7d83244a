package io.nyala.common.fault;

import io.nyala.common.NyalaException;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Named crash points: code calls {@link #maybeCrash(String)} at a point where a crash is worth
 * testing (e.g. "blocks committed, superblock not yet written"); when the point is armed with a
 * fraction f, that call crashes the process with probability f (always when f ≥ 1).
 *
 * <p>Requirements:
 * <ul>
 *   <li>A crash is a crash: the default {@link CrashAction#HALT} logs the point's name and calls
 *       {@code Runtime.halt} with {@link #EXIT_CODE}, so no shutdown hook, finally block or
 *       graceful close runs. Tests of this class inject their own action.
 *   <li>Process-wide, like the crash it causes: one configuration per JVM, installed at server
 *       start by {@link #install}, so a hook is a single static call with no plumbing. A JVM that
 *       hosts several servers (the in-process minicluster) must not arm any point.
 *   <li>Free when off: with nothing armed {@link #maybeCrash} is one volatile read and a map
 *       lookup on an empty map.
 *   <li>Deterministic under test: the random source is injected (seeded).
 * </ul>
 */
public final class CrashPoints {
  private static final Logger LOG = LoggerFactory.getLogger(CrashPoints.class);
  /** Exit status of a process halted at a crash point, so a test can tell it from others. */
  public static final int EXIT_CODE = 86;
  private static final CrashPoints NONE =
      new CrashPoints(Map.of(), RandomGenerator.getDefault(), CrashAction.HALT);
  private static volatile CrashPoints installed = NONE;

  /** What reaching an armed point does; {@link #HALT} in servers, a recorder in tests. */
  @FunctionalInterface
  public interface CrashAction {
    CrashAction HALT = point -> {
      LOG.error("FAULT INJECTION: crashing at crash point '{}' (exit status {})", point,
          EXIT_CODE);
      System.err.flush();
      Runtime.getRuntime().halt(EXIT_CODE);
    };

    void crash(String point);
  }

  /** Armed point → fraction of its calls that crash, in (0, 1]. */
  private final Map<String, Double> fractions;
  /** Guarded by itself: RandomGenerator instances are not all thread-safe. */
  private final RandomGenerator random;
  private final CrashAction action;
  private final Map<String, LongAdder> reached = new ConcurrentHashMap<>();

  /**
   * Arms each point of {@code fractions} (points at 0 stay off); {@code random} decides, and
   * {@code action} is what a crash does.
   */
  public CrashPoints(Map<String, Double> fractions, RandomGenerator random, CrashAction action) {
    Map<String, Double> armed = new TreeMap<>();
    fractions.forEach((point, f) -> {
      if (f == null || f.isNaN() || f < 0 || f > 1) {
        throw NyalaException.invalidArgument("crash point '%s': fraction must be in [0, 1], "
            + "got %s", point, f);
      }
      if (f > 0) {
        armed.put(point, f);
      }
    });
    this.fractions = Map.copyOf(armed);
    this.random = random;
    this.action = action;
  }

  /**
   * Parses {@code point=fraction[,point=fraction...]} (the flag's syntax; empty = none) and
   * checks every name against {@code known}, so a typo fails the start instead of never firing.
   */
  public static Map<String, Double> parse(String spec, Set<String> known) {
    Map<String, Double> out = new TreeMap<>();
    if (spec == null || spec.isBlank()) {
      return out;
    }
    for (String part : spec.split(",")) {
      String[] kv = part.trim().split("=", 2);
      if (kv.length != 2 || !known.contains(kv[0].trim())) {
        throw NyalaException.invalidArgument("crash point '%s': expected <point>=<fraction> "
            + "with a point among %s", part.trim(), new TreeSet<>(known));
      }
      try {
        out.put(kv[0].trim(), Double.parseDouble(kv[1].trim()));
      } catch (NumberFormatException e) {
        throw NyalaException.invalidArgument("crash point '%s': fraction '%s' is not a number",
            kv[0].trim(), kv[1].trim());
      }
    }
    return out;
  }

  /** Makes {@code points} this process's configuration. */
  public static void install(CrashPoints points) {
    installed = points;
    if (!points.fractions.isEmpty()) {
      LOG.warn("UNSAFE test fault on: this process crashes at {}", points.fractions);
    }
  }

  /**
   * Arms the points {@code spec} names ({@link #parse}), each halting the process when its draw
   * says so; leaves the process alone when it names none. A server's start calls it with its
   * {@code --fault_crash_points}.
   */
  public static void installFromFlag(String spec, Set<String> known) {
    Map<String, Double> armed = parse(spec, known);
    if (!armed.isEmpty()) {
      install(new CrashPoints(armed, new SplittableRandom(), CrashAction.HALT));
    }
  }

  /** Disarms every point of this process. */
  public static void uninstall() {
    installed = NONE;
  }

  /** The hook: crashes the process here if the point is armed and its draw says so. */
  public static void maybeCrash(String point) {
    installed.reach(point);
  }

  /** This configuration's decision for one call at {@code point}. */
  public void reach(String point) {
    Double f = fractions.get(point);
    if (f == null) {
      return;
    }
    reached.computeIfAbsent(point, p -> new LongAdder()).increment();
    double draw;
    synchronized (random) {
      draw = random.nextDouble();
    }
    if (f >= 1 || draw < f) {
      action.crash(point);
    }
  }

  /** How often an armed point was reached (crashed or not); 0 for points not armed. */
  public long reached(String point) {
    LongAdder a = reached.get(point);
    return a == null ? 0 : a.sum();
  }
}
