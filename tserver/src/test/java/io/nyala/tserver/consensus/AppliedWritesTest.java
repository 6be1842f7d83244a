package io.nyala.tserver.consensus;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.ClientInvocationId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class AppliedWritesTest {
  private static final ClientId CLIENT = ClientId.randomId();

  private static ClientInvocationId call(long seq) {
    return ClientInvocationId.valueOf(CLIENT, seq);
  }

  @Test
  void findsWhatWasAppliedUntilItExpires() {
    AppliedWrites w = new AppliedWrites();
    w.record(call(1), new byte[] {1}, 100);
    w.record(call(2), new byte[] {2}, 200);
    assertThat(w.find(call(1))).containsExactly(1);
    assertThat(w.find(call(2))).containsExactly(2);
    assertThat(w.find(ClientInvocationId.valueOf(ClientId.randomId(), 1))).isNull();

    w.expire(150);
    assertThat(w.find(call(1))).isNull();
    assertThat(w.find(call(2))).containsExactly(2);
    assertThat(w.size()).isEqualTo(1);
  }

  @Test
  void aReplayedCallKeepsItsNewerRecordWhenTheOlderExpires() {
    AppliedWrites w = new AppliedWrites();
    w.record(call(7), new byte[] {7}, 100);
    w.record(call(7), new byte[] {7}, 300); // the log replayed after a restart
    w.expire(200);
    assertThat(w.find(call(7))).containsExactly(7);
    w.expire(300);
    assertThat(w.find(call(7))).isNull();
  }

  @Test
  void keepsEveryResultOfTheWindowAndForgetsOnlyWhatItsClientAcknowledged() {
    AppliedWrites w = new AppliedWrites();
    for (long seq = 0; seq < 120_000; seq++) {
      w.record(call(seq), new byte[] {1}, 100);
    }
    w.forget(call(3));
    assertThat(w.find(call(0))).containsExactly(1);
    assertThat(w.find(call(3))).isNull();
    assertThat(w.size()).isEqualTo(119_999);
  }
}
