package io.nyala.common.metrics.ratis;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a Ratis metric's name into a Prometheus family name and the peer it names, if any.
 * Ratis names a metric within a registry of an application, component and prefix, e.g.
 * {@code follower_<peer>_match_index} in {@code ratis}, {@code log_appender},
 * {@code <peer>@group-2B81DE4AC5A2}; the name becomes
 * {@code ratis_<component>_<snake_case name>}, the peer id lifted into a label so that the
 * family name stays bounded, and a trailing {@code _count} dropped (Prometheus reserves it);
 * the caller adds the type's suffix ({@code _total}, {@code _seconds}). A name that still
 * carries its registry's full name, {@code <application>.<component>.<prefix>.<metric>} (as
 * Ratis' default, Dropwizard-based registries spelled it), loses it.
 */
final class RatisMetricNames {
  /** A peer id inside a metric name: Nyala's peer ids are 32-hex server uuids. */
  private static final Pattern PEER = Pattern.compile("(?<![0-9a-fA-F])[0-9a-fA-F]{32}"
      + "(?![0-9a-fA-F])");
  private static final Pattern CAMEL = Pattern.compile("([a-z0-9])([A-Z])");
  private static final Pattern NOT_NAME = Pattern.compile("[^a-z0-9_]+");

  /**
   * A mapped base name (no type suffix), the peer lifted out of it (null if none), and Ratis'
   * own name of the metric with {@code <peer>} in place of the peer, for help text.
   */
  record Mapped(String base, String peer, String ratisName) {}

  private RatisMetricNames() {}

  /**
   * The family for Ratis metric {@code metric} of a registry of this application,
   * component and prefix (as Ratis names them, e.g. {@code ratis}, {@code log_worker} and
   * {@code <peer>@group-<id>}).
   */
  static Mapped map(String application, String component, String prefix, String metric) {
    int own = metric.indexOf(prefix + ".");
    if (own >= 0) {
      metric = metric.substring(own + prefix.length() + 1);
    }
    String peer = null;
    Matcher m = PEER.matcher(metric);
    String ratisName = metric;
    if (m.find()) {
      peer = m.group();
      ratisName = metric.substring(0, m.start()) + "<peer>" + metric.substring(m.end());
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
    return new Mapped(base, peer, ratisName);
  }

  private static String snake(String s) {
    String out = CAMEL.matcher(s).replaceAll("$1_$2").toLowerCase(Locale.ROOT);
    return NOT_NAME.matcher(out).replaceAll("_");
  }
}
