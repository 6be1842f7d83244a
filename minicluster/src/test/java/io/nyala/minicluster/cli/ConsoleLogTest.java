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

  @Test
  void aStopHidesRatisErrorsAboutGroupsItClosesAndShowsTheRest() {
    Exception closing = new org.apache.ratis.protocol.exceptions.ServerNotReadyException(
        "ts@group-1 is not in [STARTING, RUNNING]: current state is CLOSING");
    assertThat(ConsoleLog.StoppingErrors.shown("org.apache.ratis.server.RaftServer$Division",
        closing)).isFalse();
    assertThat(ConsoleLog.StoppingErrors.shown("org.apache.ratis.grpc.server.X",
        new RuntimeException("wrapped", closing))).isFalse();
    assertThat(ConsoleLog.StoppingErrors.shown("org.apache.ratis.server.RaftServer$Division",
        new java.io.IOException("disk"))).isTrue();
    assertThat(ConsoleLog.StoppingErrors.shown("io.nyala.tserver.TabletServer", closing))
        .isTrue();
    assertThat(ConsoleLog.StoppingErrors.shown("org.apache.ratis.x", null)).isTrue();
  }
}
