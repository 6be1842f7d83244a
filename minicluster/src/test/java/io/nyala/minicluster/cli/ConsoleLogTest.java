package io.nyala.minicluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

class ConsoleLogTest {
  @Test
  void theConsoleShowsNyalaWarningsAndEveryonesErrors() {
    assertThat(ConsoleLog.NyalaWarnings.shown(Level.WARN, "io.nyala.tserver.TabletServer"))
        .isTrue();
    assertThat(ConsoleLog.NyalaWarnings.shown(Level.ERROR, "org.apache.ratis.server.RaftServer"))
        .isTrue();
    assertThat(ConsoleLog.NyalaWarnings.shown(Level.WARN,
        "org.apache.ratis.grpc.server.GrpcLogAppender")).isFalse();
    assertThat(ConsoleLog.NyalaWarnings.shown(Level.INFO, "io.nyala.master.MasterServer"))
        .isFalse();
  }
}
