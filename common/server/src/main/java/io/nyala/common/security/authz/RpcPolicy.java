package io.nyala.common.security.authz;

import io.grpc.MethodDescriptor;
import io.nyala.common.proto.fault.FaultInjectionServiceGrpc;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.tserver.TabletCopyServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerAdminServiceGrpc;
import io.nyala.common.proto.tserver.TabletServerServiceGrpc;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Who may call each method of Nyala's RPC when {@code --rpc_authentication=required}: the one
 * place that says it (docs/architecture.md, "Who may call what").
 *
 * <table>
 *   <caption>Required role by method</caption>
 *   <tr><th>service</th><th>methods</th><th>who</th></tr>
 *   <tr><td>{@code nyala.tserver.TabletServerAdminService}</td><td>CreateTablet, DeleteTablet,
 *     TransferLeadership, ChangeConfig, AlterSchema, HibernateReplica, WakeReplica,
 *     RequestHibernation, ConfirmHibernated (the master's admin calls and the tservers'
 *     hibernation protocol)</td>
 *     <td>server</td></tr>
 *   <tr><td>{@code nyala.tserver.TabletCopyService}</td><td>BeginTabletCopySession, FetchData,
 *     EndTabletCopySession</td><td>server</td></tr>
 *   <tr><td>{@code nyala.fault.FaultInjectionService}</td><td>SetPartition</td>
 *     <td>server</td></tr>
 *   <tr><td>{@code nyala.master.MasterService}</td><td>TSHeartbeat (a tserver's registration
 *     and reports)</td><td>server</td></tr>
 *   <tr><td>{@code nyala.master.MasterService}</td><td>RotateClusterKey, GetClusterKeyStatus
 *     (an operator's {@code nyala cluster rotate-key}, presenting a server certificate)</td>
 *     <td>server</td></tr>
 *   <tr><td>{@code nyala.master.MasterService}</td><td>Authenticate, ListMasters,
 *     GetMasterRegistration (getting a token and finding the leader), IssueCertificate (a
 *     tablet server without a certificate yet; the request proves membership itself)</td>
 *     <td>anyone</td></tr>
 *   <tr><td>{@code nyala.master.MasterService}</td><td>CreateTable, IsCreateTableDone,
 *     DeleteTable, AlterTable, IsAlterTableDone, ListTables, GetTableSchema, GetTableLocations,
 *     ListTabletServers</td><td>user (a token) or server</td></tr>
 *   <tr><td>{@code nyala.tserver.TabletServerService}</td><td>Write, Scan, ScannerKeepAlive,
 *     ListTablets</td><td>user (a token) or server</td></tr>
 *   <tr><td>any other method</td><td></td><td>server</td></tr>
 * </table>
 *
 * <p>A method not listed needs a server identity: a new RPC is closed until it is added here
 * ({@code RpcPolicyTest} fails on a method of Nyala's services that is missing).
 */
public final class RpcPolicy {
  /** What a caller must be to call a method. */
  public enum Role {
    /** Any caller, anonymous included; a token sent along is not even read. */
    ANYONE,
    /** A user with a valid token, or a server. */
    USER,
    /** A server of the cluster: a certificate of the trusted CA. */
    SERVER
  }

  private static final Map<String, Role> TABLE = table();

  private RpcPolicy() {}

  private static Map<String, Role> table() {
    Map<String, Role> t = new HashMap<>();
    forService(t, TabletServerAdminServiceGrpc.getServiceDescriptor().getMethods(), Role.SERVER);
    forService(t, TabletCopyServiceGrpc.getServiceDescriptor().getMethods(), Role.SERVER);
    forService(t, FaultInjectionServiceGrpc.getServiceDescriptor().getMethods(), Role.SERVER);
    forService(t, TabletServerServiceGrpc.getServiceDescriptor().getMethods(), Role.USER);
    forService(t, MasterServiceGrpc.getServiceDescriptor().getMethods(), Role.USER);
    t.put(MasterServiceGrpc.getTSHeartbeatMethod().getFullMethodName(), Role.SERVER);
    t.put(MasterServiceGrpc.getRotateClusterKeyMethod().getFullMethodName(), Role.SERVER);
    t.put(MasterServiceGrpc.getGetClusterKeyStatusMethod().getFullMethodName(), Role.SERVER);
    t.put(MasterServiceGrpc.getAuthenticateMethod().getFullMethodName(), Role.ANYONE);
    t.put(MasterServiceGrpc.getListMastersMethod().getFullMethodName(), Role.ANYONE);
    t.put(MasterServiceGrpc.getGetMasterRegistrationMethod().getFullMethodName(), Role.ANYONE);
    // Its caller has no certificate yet; the request carries a proof of membership instead
    // (docs/architecture.md, "TLS and the internal CA").
    t.put(MasterServiceGrpc.getIssueCertificateMethod().getFullMethodName(), Role.ANYONE);
    return Map.copyOf(t);
  }

  private static void forService(Map<String, Role> t,
      Collection<MethodDescriptor<?, ?>> methods, Role role) {
    for (MethodDescriptor<?, ?> m : methods) {
      t.put(m.getFullMethodName(), role);
    }
  }

  /** The role {@code fullMethodName} ({@code nyala.master.MasterService/ListTables}) needs. */
  public static Role required(String fullMethodName) {
    return TABLE.getOrDefault(fullMethodName, Role.SERVER);
  }

  /** The methods the table names, for tests that hold it complete. */
  static Set<String> listed() {
    return TABLE.keySet();
  }

  /**
   * Why {@code caller} may not call {@code fullMethodName}, or null when it may.
   *
   * @return e.g. {@code nyala.tserver.TabletServerAdminService/DeleteTablet needs a server
   *     identity; caller is anonymous client 127.0.0.1:53122}
   */
  public static String refusal(String fullMethodName, Caller caller) {
    Role role = required(fullMethodName);
    if (role == Role.ANYONE || caller.isServer()
        || (role == Role.USER && caller.kind() == Caller.Kind.USER)) {
      return null;
    }
    if (role == Role.USER) {
      return fullMethodName + " needs an authenticated user: pass credentials to the client "
          + "(NyalaClient.builder(...).credentials(user, password)); caller is " + caller;
    }
    return fullMethodName + " needs a server identity (a certificate of the cluster's CA); "
        + "caller is " + caller;
  }
}
