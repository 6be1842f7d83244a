package io.nyala.common.metrics.ratis;

import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.RatisMetricRegistry;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Nyala's implementation of Ratis' metrics SPI, the one {@link MetricRegistries#global()} loads
 * (META-INF/services; Ratis uses the first implementation its ServiceLoader finds, and Nyala
 * ships no other). Its registries hold {@link RatisCounter}s, {@link RatisTimer}s and gauges,
 * each updated with a few adds and nothing else, and {@link RatisMetricSource} renders them on
 * {@code /metrics}. Ratis' default implementation kept a Dropwizard timer with a decaying
 * reservoir per timer, updated on every append and apply, and registered every metric as a JMX
 * MBean unless a reporter was set; this one has no JMX and no reservoirs (docs/architecture.md,
 * "Metrics").
 *
 * <p>Ratis creates a registry per division and component and removes it when the division
 * closes; a dense node does so thousands of times. As in Ratis' default, a registry is counted:
 * each {@link #create} of an existing one adds a reference, each {@link #remove} drops one, and
 * the registry goes with its last. Thread-safe: one concurrent map, each key changed by a
 * compare-and-set of its counted value.
 */
public final class RatisRegistries extends MetricRegistries {
  private static final Logger LOG = LoggerFactory.getLogger(RatisRegistries.class);
  /** Whether the warning about another implementation was logged (once per JVM). */
  private static final AtomicBoolean FOREIGN_WARNED = new AtomicBoolean();

  /** A registry and how many creates it has not yet seen removed. */
  private record Counted(RatisRegistry registry, int references) {}

  private final ConcurrentHashMap<MetricRegistryInfo, Counted> registries =
      new ConcurrentHashMap<>();
  private final List<Consumer<RatisMetricRegistry>> onCreate = new CopyOnWriteArrayList<>();
  private final List<Consumer<RatisMetricRegistry>> onRemove = new CopyOnWriteArrayList<>();

  /** For Ratis' ServiceLoader; everyone else uses {@link MetricRegistries#global()}. */
  public RatisRegistries() {}

  /**
   * Checks, before a server builds its RaftServer, that Ratis loaded this implementation. With a
   * second one on the class path (Ratis' ratis-metrics-default, say in the test class path of a
   * project that also uses Ratis) Ratis takes whichever its ServiceLoader finds first. The server
   * then still runs, as it must in someone else's JVM, but it logs a warning once, naming the
   * implementation and its jar, {@code /metrics} shows none of Ratis' metrics, and a no-op
   * reporter is registered so that the other implementation at least does not make every metric
   * of every division a JMX MBean (docs/dense-nodes.md, "Ratis' metrics stay out of JMX").
   *
   * @return whether Ratis uses this implementation
   */
  public static boolean checkLoaded() {
    MetricRegistries global = MetricRegistries.global();
    if (global instanceof RatisRegistries) {
      return true;
    }
    if (FOREIGN_WARNED.compareAndSet(false, true)) {
      global.addReporterRegistration(r -> { }, r -> { });
      LOG.warn("Ratis loaded the metrics implementation {} (from {}), not Nyala's {}: /metrics "
          + "shows no Ratis metrics and each of their updates costs more; remove that jar from "
          + "the class path", global.getClass().getName(),
          global.getClass().getProtectionDomain().getCodeSource(),
          RatisRegistries.class.getName());
    }
    return false;
  }

  @Override
  public RatisMetricRegistry create(MetricRegistryInfo info) {
    Counted c = registries.compute(info, (k, old) -> old == null
        ? new Counted(new RatisRegistry(k), 1)
        : new Counted(old.registry(), old.references() + 1));
    if (c.references() == 1) {
      onCreate.forEach(r -> r.accept(c.registry()));
    }
    return c.registry();
  }

  /** Drops one reference to the registry; true if that was its last and it is gone. */
  @Override
  public boolean remove(MetricRegistryInfo info) {
    while (true) {
      Counted c = registries.get(info);
      if (c == null) {
        return false;
      }
      if (c.references() > 1) {
        if (registries.replace(info, c, new Counted(c.registry(), c.references() - 1))) {
          return false;
        }
      } else if (registries.remove(info, c)) {
        onRemove.forEach(r -> r.accept(c.registry()));
        return true;
      }
    }
  }

  @Override
  public Optional<RatisMetricRegistry> get(MetricRegistryInfo info) {
    return Optional.ofNullable(registries.get(info)).map(Counted::registry);
  }

  @Override
  public Set<MetricRegistryInfo> getMetricRegistryInfos() {
    return Collections.unmodifiableSet(registries.keySet());
  }

  /** A copy: the registries there are now. */
  @Override
  public Collection<RatisMetricRegistry> getMetricRegistries() {
    return registries.values().stream().<RatisMetricRegistry>map(Counted::registry).toList();
  }

  @Override
  public void clear() {
    registries.clear();
  }

  /** Calls {@code start} with each registry created from now on, {@code stop} with each removed. */
  @Override
  public void addReporterRegistration(Consumer<RatisMetricRegistry> start,
      Consumer<RatisMetricRegistry> stop) {
    onCreate.add(start);
    onRemove.add(stop);
  }

  @Override
  public void removeReporterRegistration(Consumer<RatisMetricRegistry> start,
      Consumer<RatisMetricRegistry> stop) {
    onCreate.remove(start);
    onRemove.remove(stop);
  }

  /** Refused: Ratis' metrics are on {@code /metrics} only (docs/dense-nodes.md). */
  @Override
  public void enableJmxReporter() {
    throw new UnsupportedOperationException("Ratis' metrics have no JMX reporter in Nyala; "
        + "they are on /metrics (docs/architecture.md, \"Metrics\")");
  }

  /** Refused: Ratis' metrics are on {@code /metrics} only. */
  @Override
  public void enableConsoleReporter(TimeDuration period) {
    throw new UnsupportedOperationException("Ratis' metrics have no console reporter in Nyala; "
        + "they are on /metrics (docs/architecture.md, \"Metrics\")");
  }
}
