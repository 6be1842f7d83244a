package io.nyala.master.placement;

import io.nyala.common.NyalaException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Chooses tservers for new tablets' replicas: for each tablet the {@code rf} least-loaded
 * candidates, ties broken at random, never one tserver twice. Replicas placed earlier in the
 * same call count towards the load, so one big table still spreads evenly.
 */
public final class ReplicaPlacer {
  private final Random random;
  /** {@code --max_create_tablets_per_ts}: replicas a new table may put on each live tserver. */
  private final int maxCreateTabletsPerTs;

  public ReplicaPlacer(Random random) {
    this(random, Integer.MAX_VALUE);
  }

  public ReplicaPlacer(Random random, int maxCreateTabletsPerTs) {
    this.random = random;
    this.maxCreateTabletsPerTs = maxCreateTabletsPerTs;
  }

  /**
   * One tserver for a new replica of an existing tablet: the least loaded of {@code loads} not
   * in {@code exclude}, ties broken at random; null if there is none.
   */
  public String pickOne(Map<String, Integer> loads, java.util.Set<String> exclude) {
    List<String> candidates = new ArrayList<>(loads.keySet());
    candidates.removeAll(exclude);
    if (candidates.isEmpty()) {
      return null;
    }
    Collections.sort(candidates);
    Collections.shuffle(candidates, random);
    candidates.sort(Comparator.comparingInt(loads::get));
    return candidates.get(0);
  }

  /**
   * @param loads replica count per candidate tserver uuid (the live tservers)
   * @return per tablet, the uuids of its {@code rf} replicas
   */
  public List<List<String>> place(Map<String, Integer> loads, int numTablets, int rf) {
    if (rf < 1) {
      throw NyalaException.invalidArgument("replication factor must be at least 1, got %d", rf);
    }
    if (rf > loads.size()) {
      throw NyalaException.invalidArgument(
          "not enough live tablet servers to create a table with replication factor %d: "
              + "%d are alive (those whose every data dir failed do not count)", rf,
          loads.size());
    }
    if ((long) numTablets * rf > (long) maxCreateTabletsPerTs * loads.size()) {
      throw NyalaException.invalidArgument("%d tablets x %d replicas is over the maximum of %d "
          + "replicas per live tablet server (%d alive) at table creation "
          + "(--max_create_tablets_per_ts)", numTablets, rf, maxCreateTabletsPerTs, loads.size());
    }
    Map<String, Integer> load = new HashMap<>(loads);
    List<List<String>> out = new ArrayList<>(numTablets);
    for (int t = 0; t < numTablets; t++) {
      List<String> candidates = new ArrayList<>(load.keySet());
      // Shuffle first, then a stable sort by load: equal loads keep their random order.
      Collections.sort(candidates);
      Collections.shuffle(candidates, random);
      candidates.sort(Comparator.comparingInt(load::get));
      List<String> chosen = List.copyOf(candidates.subList(0, rf));
      chosen.forEach(u -> load.merge(u, 1, Integer::sum));
      out.add(chosen);
    }
    return out;
  }
}
