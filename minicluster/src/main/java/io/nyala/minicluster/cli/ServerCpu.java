package io.nyala.minicluster.cli;

import io.nyala.common.NyalaException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The tablet servers' CPU time so far, for {@code perf scan}'s CPU per row: either the sum of
 * {@code process_cpu_seconds_total} over the servers' {@code /metrics} pages (server processes),
 * or, when the servers share this JVM, the JVM's CPU time less the calling thread's, which
 * counts the client's I/O threads too (the line that prints it says so).
 */
abstract class ServerCpu {
  private static final String METRIC = "process_cpu_seconds_total";

  /** @return CPU seconds consumed so far */
  abstract double seconds();

  /** @return what {@link #seconds()} covers, for the printed line */
  abstract String label();

  /** The sum of {@code process_cpu_seconds_total} on each of {@code metricsUrls}. */
  static ServerCpu fromMetrics(List<String> metricsUrls) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    return new ServerCpu() {
      @Override
      double seconds() {
        double sum = 0;
        for (String url : metricsUrls) {
          sum += scrape(http, url, METRIC);
        }
        return sum;
      }

      @Override
      String label() {
        return "server CPU";
      }
    };
  }

  /** This JVM's CPU time less the calling thread's: servers and the client's I/O threads. */
  static ServerCpu restOfThisJvm() {
    var os = (com.sun.management.OperatingSystemMXBean)
        ManagementFactory.getOperatingSystemMXBean();
    return new ServerCpu() {
      @Override
      double seconds() {
        return (os.getProcessCpuTime() - clientThreadNanos()) / 1e9;
      }

      @Override
      String label() {
        return "server+client-I/O CPU";
      }
    };
  }

  /** @return CPU nanoseconds of the calling thread */
  static long clientThreadNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  /** The value of {@code metric} (unlabelled, or its first series) on a /metrics page. */
  static double scrape(HttpClient http, String url, String metric) {
    HttpResponse<String> r;
    try {
      r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read " + url + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw NyalaException.ioError("interrupted reading " + url, e);
    }
    if (r.statusCode() != 200) {
      throw NyalaException.ioError(url + " answered HTTP " + r.statusCode(), null);
    }
    for (String line : r.body().split("\n")) {
      if (line.startsWith(metric + " ") || line.startsWith(metric + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    throw NyalaException.notFound("%s has no %s", url, metric);
  }
}
