package io.nyala.common.metrics.ratis;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.ratis.metrics.LongCounter;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.metrics.Timekeeper;

/**
 * One of Ratis' metric registries (a division's or a server's, for one component): its metrics
 * by the names Ratis gives them, e.g. {@code follower_<peer>_match_index}, without the registry's
 * prefix. As in Ratis' default registry, asking again for a name returns the metric already
 * there, a gauge keeps its first supplier, and a name holds one kind of metric only. Thread-safe;
 * Ratis registers from its own threads while a scrape reads.
 */
final class RatisRegistry implements RatisMetricRegistry {
  private final MetricRegistryInfo info;
  private final Map<String, RatisMetric> metrics = new ConcurrentHashMap<>();

  RatisRegistry(MetricRegistryInfo info) {
    this.info = Objects.requireNonNull(info, "info");
  }

  @Override
  public Timekeeper timer(String name) {
    return get(name, RatisTimer.class, k -> new RatisTimer());
  }

  @Override
  public LongCounter counter(String name) {
    return get(name, RatisCounter.class, k -> new RatisCounter());
  }

  @Override
  public <T> void gauge(String name, Supplier<Supplier<T>> gaugeSupplier) {
    get(name, RatisMetric.Gauge.class, k -> new RatisMetric.Gauge(gaugeSupplier.get()));
  }

  @Override
  public boolean remove(String name) {
    return metrics.remove(name) != null;
  }

  @Override
  public MetricRegistryInfo getMetricRegistryInfo() {
    return info;
  }

  /** Each metric with its name, for a scrape; metrics added or removed meanwhile may be missed. */
  void forEach(BiConsumer<String, RatisMetric> action) {
    metrics.forEach(action);
  }

  private <M extends RatisMetric> M get(String name, Class<M> kind,
      Function<String, RatisMetric> create) {
    RatisMetric m = metrics.get(name);
    if (m == null) {
      m = metrics.computeIfAbsent(name, create);
    }
    if (!kind.isInstance(m)) {
      throw new IllegalArgumentException("Ratis metric " + name + " of " + info.getPrefix()
          + " is a " + m.getClass().getSimpleName() + ", not a " + kind.getSimpleName());
    }
    return kind.cast(m);
  }

  @Override
  public String toString() {
    return "RatisRegistry(" + info + ", " + metrics.size() + " metrics)";
  }
}
