package io.nyala.common.security.authz;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.nyala.common.proto.Common;
import io.nyala.common.proto.fault.Fault;
import io.nyala.common.proto.master.Master;
import io.nyala.common.proto.metadata.Metadata;
import io.nyala.common.proto.tserver.Tserver;
import io.nyala.common.security.authz.RpcPolicy.Role;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The table of who may call what: complete, closed by default, and its refusals' wording. */
@Timeout(30)
class RpcPolicyTest {
  private static final Caller ANONYMOUS = Caller.anonymous("127.0.0.1:53122");
  private static final Caller SERVER = Caller.server("ts-0", "127.0.0.1:50412");
  private static final Caller USER = Caller.user("alice", "127.0.0.1:53123");

  @Test
  void everyMethodOfEveryNyalaServiceIsInTheTable() {
    for (FileDescriptor file : List.of(Common.getDescriptor(), Fault.getDescriptor(),
        Master.getDescriptor(), Metadata.getDescriptor(), Tserver.getDescriptor())) {
      for (ServiceDescriptor service : file.getServices()) {
        for (MethodDescriptor m : service.getMethods()) {
          assertThat(RpcPolicy.listed()).as("decide who may call %s in RpcPolicy's table",
              m.getFullName()).contains(service.getFullName() + "/" + m.getName());
        }
      }
    }
  }

  @Test
  void adminDestructiveAndServerToServerCallsNeedAServer() {
    for (String m : List.of("nyala.tserver.TabletServerAdminService/CreateTablet",
        "nyala.tserver.TabletServerAdminService/DeleteTablet",
        "nyala.tserver.TabletServerAdminService/TransferLeadership",
        "nyala.tserver.TabletServerAdminService/ChangeConfig",
        "nyala.tserver.TabletServerAdminService/AlterSchema",
        "nyala.tserver.TabletServerAdminService/HibernateReplica",
        "nyala.tserver.TabletServerAdminService/WakeReplica",
        "nyala.tserver.TabletServerAdminService/RequestHibernation",
        "nyala.tserver.TabletServerAdminService/ConfirmHibernated",
        "nyala.tserver.TabletCopyService/BeginTabletCopySession",
        "nyala.tserver.TabletCopyService/FetchData",
        "nyala.tserver.TabletCopyService/EndTabletCopySession",
        "nyala.fault.FaultInjectionService/SetPartition",
        "nyala.master.MasterService/TSHeartbeat")) {
      assertThat(RpcPolicy.required(m)).as(m).isEqualTo(Role.SERVER);
      assertThat(RpcPolicy.refusal(m, SERVER)).as(m).isNull();
      assertThat(RpcPolicy.refusal(m, ANONYMOUS)).as(m).isNotNull();
      assertThat(RpcPolicy.refusal(m, USER)).as(m).isNotNull();
    }
  }

  @Test
  void clientCallsNeedAUserWithATokenOrAServer() {
    for (String m : List.of("nyala.tserver.TabletServerService/Write",
        "nyala.tserver.TabletServerService/Scan",
        "nyala.tserver.TabletServerService/ScannerKeepAlive",
        "nyala.tserver.TabletServerService/ListTablets",
        "nyala.master.MasterService/CreateTable", "nyala.master.MasterService/AlterTable",
        "nyala.master.MasterService/DeleteTable", "nyala.master.MasterService/ListTables",
        "nyala.master.MasterService/GetTableLocations",
        "nyala.master.MasterService/ListTabletServers")) {
      assertThat(RpcPolicy.required(m)).as(m).isEqualTo(Role.USER);
      assertThat(RpcPolicy.refusal(m, USER)).as(m).isNull();
      assertThat(RpcPolicy.refusal(m, SERVER)).as(m).isNull();
      assertThat(RpcPolicy.refusal(m, ANONYMOUS)).as(m)
          .isEqualTo(m + " needs an authenticated user: pass credentials to the client "
              + "(NyalaClient.builder(...).credentials(user, password)); caller is anonymous "
              + "client 127.0.0.1:53122");
    }
  }

  @Test
  void gettingATokenAndFindingTheLeaderStayOpenToAnonymousCallers() {
    for (String m : List.of("nyala.master.MasterService/Authenticate",
        "nyala.master.MasterService/ListMasters",
        "nyala.master.MasterService/GetMasterRegistration")) {
      assertThat(RpcPolicy.required(m)).as(m).isEqualTo(Role.ANYONE);
      assertThat(RpcPolicy.refusal(m, ANONYMOUS)).as(m).isNull();
    }
  }

  @Test
  void aMethodNotInTheTableNeedsAServer() {
    assertThat(RpcPolicy.required("nyala.tserver.TabletServerAdminService/Format"))
        .isEqualTo(Role.SERVER);
    assertThat(RpcPolicy.required("grpc.health.v1.Health/Check")).isEqualTo(Role.SERVER);
  }

  @Test
  void aRefusalNamesTheMethodAndTheCaller() {
    assertThat(RpcPolicy.refusal("nyala.tserver.TabletServerAdminService/DeleteTablet",
        ANONYMOUS)).isEqualTo("nyala.tserver.TabletServerAdminService/DeleteTablet needs a "
            + "server identity (a certificate of the cluster's CA); caller is anonymous client "
            + "127.0.0.1:53122");
    assertThat(SERVER).hasToString("server 'ts-0' at 127.0.0.1:50412");
    assertThat(USER).hasToString("user 'alice' at 127.0.0.1:53123");
  }
}
