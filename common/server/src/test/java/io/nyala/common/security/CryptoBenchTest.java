package io.nyala.common.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class CryptoBenchTest {
  /** Only the shape of the report: timings are printed, never asserted. */
  @Test
  @Timeout(60)
  void printsOneLinePerCombination() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    CryptoBench.run(new PrintStream(buf, true, StandardCharsets.UTF_8), Duration.ofMillis(20));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(out.lines().filter(l -> l.startsWith("AES-"))).hasSize(8);
    assertThat(out).contains("AES-128-CTR jce  chunk=4KiB").contains("AES-256-CTR bc   chunk=1MiB")
        .contains("MB/s");
  }
}
