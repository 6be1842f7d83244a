package io.nyala.docker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.output.OutputFrame;

@Timeout(10)
class ServerLogConsumerTest {
  @Test
  void everyLineCarriesTheServerName() {
    List<String> lines = new ArrayList<>();
    ServerLogConsumer c = new ServerLogConsumer("ts-2", lines::add);
    c.accept(new OutputFrame(OutputFrame.OutputType.STDOUT,
        "tablet t1 RUNNING\nleader elected\n".getBytes(StandardCharsets.UTF_8)));
    c.accept(OutputFrame.END);
    assertThat(lines).containsExactly("[ts-2] tablet t1 RUNNING", "[ts-2] leader elected");
  }
}
