package io.nyala.common.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Crash points fire at their configured fraction; the crash action is a recorder here. */
@Timeout(10)
class CrashPointsTest {
  private static final long SEED = 42;
  private final List<String> crashes = new ArrayList<>();

  private CrashPoints points(Map<String, Double> fractions) {
    return new CrashPoints(fractions, new SplittableRandom(SEED), crashes::add);
  }

  @AfterEach
  void disarm() {
    CrashPoints.uninstall();
  }

  @Test
  void aPointFiresAtItsFractionAndOthersNever() {
    CrashPoints p = points(Map.of("a", 0.25, "off", 0.0));
    for (int i = 0; i < 10_000; i++) {
      p.reach("a");
      p.reach("off");
      p.reach("unknown");
    }
    assertThat(p.reached("a")).isEqualTo(10_000);
    assertThat(p.reached("off")).isZero();
    assertThat(crashes).containsOnly("a");
    // 10k Bernoulli(0.25) draws: mean 2500, sd ≈ 43; the seed makes the count fixed anyway.
    assertThat(crashes.size()).as("seed %d", SEED).isBetween(2300, 2700);
  }

  @Test
  void theSameSeedCrashesAtTheSameCalls() {
    List<Integer> first = crashCalls();
    crashes.clear();
    assertThat(crashCalls()).isEqualTo(first).isNotEmpty();
  }

  private List<Integer> crashCalls() {
    CrashPoints p = points(Map.of("a", 0.1));
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int before = crashes.size();
      p.reach("a");
      if (crashes.size() > before) {
        at.add(i);
      }
    }
    return at;
  }

  @Test
  void fractionOneAlwaysCrashes() {
    CrashPoints p = points(Map.of("a", 1.0));
    for (int i = 0; i < 100; i++) {
      p.reach("a");
    }
    assertThat(crashes).hasSize(100);
  }

  @Test
  void theInstalledConfigurationIsWhatTheStaticHookUses() {
    CrashPoints.maybeCrash("a"); // nothing installed: nothing happens
    CrashPoints.install(points(Map.of("a", 1.0)));
    CrashPoints.maybeCrash("b");
    CrashPoints.maybeCrash("a");
    CrashPoints.uninstall();
    CrashPoints.maybeCrash("a");
    assertThat(crashes).containsExactly("a");
  }

  @Test
  void theFlagSyntaxNamesKnownPointsOnly() {
    Set<String> known = Set.of("flush_before_superblock", "flush_after_superblock");
    assertThat(CrashPoints.parse("", known)).isEmpty();
    assertThat(CrashPoints.parse("flush_before_superblock=1, flush_after_superblock=0.5", known))
        .isEqualTo(Map.of("flush_before_superblock", 1.0, "flush_after_superblock", 0.5));
    assertThatThrownBy(() -> CrashPoints.parse("flush_befor_superblock=1", known))
        .isInstanceOf(NyalaException.class).hasMessageContaining("flush_befor_superblock")
        .hasMessageContaining("flush_before_superblock");
    assertThatThrownBy(() -> CrashPoints.parse("flush_before_superblock=often", known))
        .hasMessageContaining("often");
    assertThatThrownBy(() -> points(Map.of("a", 1.5))).hasMessageContaining("[0, 1]");
  }
}
