package io.nyala.client;

import static io.nyala.client.ClientFixture.insert;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.nyala.client.fake.FakeMaster;
import io.nyala.client.fake.FakeTabletServer;
import io.nyala.common.StatusCode;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.proto.tserver.WriteResponsePB;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A tablet server refusing the client's token (docs/architecture.md, "Client tokens"): the
 * client authenticates again once and retries the call, and never loops on renewals.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class TokenRenewalTest {
  private final ClientFixture f = new ClientFixture(1, 1,
      b -> b.credentials("alice", "s3cret"));

  @AfterEach
  void close() {
    f.close();
  }

  private static FakeTabletServer.Hook<WriteRequestPB, WriteResponsePB> refuse(String why) {
    return (ts, req) -> {
      throw Status.UNAUTHENTICATED.withDescription(why).asRuntimeException();
    };
  }

  @Test
  void aTabletServerThatDoesNotKnowTheTokensKeyGetsTheCallAgainWithARenewedToken() {
    NyalaTable t = f.createTable("m", 1, 1);
    FakeMaster master = f.cluster.masters().get(0);
    FakeTabletServer leader = f.tablet("m", 0).leader();
    int authenticated = master.calls("Authenticate");
    leader.onNextWrite(refuse("token of user 'alice' names unknown signing key 1: forged or "
        + "from another cluster"));

    OperationResponse r = f.client.newSession().apply(insert(t, 1, "a"));

    assertThat(r.hasRowError()).as("%s", r).isFalse();
    assertThat(leader.writes).hasSize(2);
    assertThat(master.calls("Authenticate")).isEqualTo(authenticated + 1);
    assertThat(f.tablet("m", 0).rowCount()).isEqualTo(1);
  }

  @Test
  void aSecondRefusalEndsTheCallAfterOneRenewal() {
    NyalaTable t = f.createTable("m", 1, 1);
    FakeMaster master = f.cluster.masters().get(0);
    FakeTabletServer leader = f.tablet("m", 0).leader();
    int authenticated = master.calls("Authenticate");
    String why = "token of user 'alice' has a bad signature: forged or from another cluster";
    leader.onEveryWrite(refuse(why));

    OperationResponse r = f.client.newSession().apply(insert(t, 1, "a"));

    assertThat(r.hasRowError()).isTrue();
    assertThat(r.getRowError().getErrorStatus().code()).isEqualTo(StatusCode.NOT_AUTHORIZED);
    assertThat(r.getRowError().getErrorStatus().message()).contains(why);
    assertThat(leader.writes).hasSize(2);
    assertThat(master.calls("Authenticate")).isEqualTo(authenticated + 1);
  }
}
