package io.nyala.common.metrics.ratis;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a Ratis metric's name (a dropwizard name such as {@code follower_<peer>_match_index} or
 * {@code numRequestQueueLimitHits}) into a Prometheus family name and the peer it names, if
 * any: {@code ratis_<component>_<snake_case name>}, the peer id lifted into a label so that the
 * family name stays bounded, and a trailing {@code _count} dropped (Prometheus reserves it);
 * the caller adds the type's suffix ({@code _total}, {@code _seconds}).
 */
final class RatisMetricNames {
  /** A peer id inside a metric name: Nyala's peer ids are 32-hex server uuids. */
  private static final Pattern PEER = Pattern.compile("(?<![0-9a-fA-F])[0-9a-fA-F]{32}"
      + "(?![0-9a-fA-F])");
  private static final Pattern CAMEL = Pattern.compile("([a-z0-9])([A-Z])");
  private static final Pattern NOT_NAME = Pattern.compile("[^a-z0-9_]+");

  /** A mapped base name (no type suffix) and the peer lifted out of it (null if none). */
  record Mapped(String base, String peer) {}

  private RatisMetricNames() {}

  /**
   * The family for metric {@code metric} of a registry of this application and component
   * (both as Ratis names them, e.g. {@code ratis} and {@code log_worker}).
   */
  static Mapped map(String application, String component, String metric) {
    String peer = null;
    Matcher m = PEER.matcher(metric);
    if (m.find()) {
      peer = m.group();
      metric = metric.substring(0, m.start()) + metric.substring(m.end());
    }
    String base = snake(application) + "_" + snake(component) + "_" + snake(metric);
    if (!base.startsWith("ratis_")) {
      base = "ratis_" + base;
    }
    base = base.replaceAll("_+", "_").replaceAll("_$", "");
    for (String suffix : new String[] {"_count", "_total", "_sum", "_bucket"}) {
      if (base.endsWith(suffix)) {
        base = base.substring(0, base.length() - suffix.length());
      }
    }
    return new Mapped(base, peer);
  }

  private static String snake(String s) {
    String out = CAMEL.matcher(s).replaceAll("$1_$2").toLowerCase(Locale.ROOT);
    return NOT_NAME.matcher(out).replaceAll("_");
  }
}
