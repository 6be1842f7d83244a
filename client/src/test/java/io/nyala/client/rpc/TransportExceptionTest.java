package io.nyala.client.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.nyala.common.HostPort;
import io.nyala.common.StatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How a gRPC failure maps onto Nyala's codes, for the codes whose retry policy matters. */
@Timeout(30)
class TransportExceptionTest {
  private static final HostPort SERVER = new HostPort("127.0.0.7", 7050);

  @Test
  void aRefusalOfTheServersAuthorizationIsNotAuthorizedAndNotRetried() {
    String why = "nyala.tserver.TabletServerAdminService/DeleteTablet needs a server identity; "
        + "caller is anonymous client 127.0.0.1:53122";
    for (Status s : new Status[] {Status.PERMISSION_DENIED, Status.UNAUTHENTICATED}) {
      TransportException e = TransportException.of(SERVER,
          s.withDescription(why).asRuntimeException());
      assertThat(e.code()).as("%s", s.getCode()).isEqualTo(StatusCode.NOT_AUTHORIZED);
      assertThat(e.isRetriable()).isFalse();
      assertThat(e.isUnreachable()).isFalse();
      assertThat(e).hasMessage("NOT_AUTHORIZED: server 127.0.0.7:7050 refused the call: " + why);
    }
  }
}
