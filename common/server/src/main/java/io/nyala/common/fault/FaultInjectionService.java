package io.nyala.common.fault;

import io.grpc.stub.StreamObserver;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.fault.FaultInjectionServiceGrpc;
import io.nyala.common.proto.fault.SetPartitionRequestPB;
import io.nyala.common.proto.fault.SetPartitionResponsePB;

/**
 * Lets a test harness set a server's partition over RPC when the server runs in a process of its
 * own (docs/testing.md, "Network partitions"). Served only with
 * {@code --unlock_unsafe_flags --fault_enable_network_partitions}. Bad input (a blank uuid) is
 * answered INVALID_ARGUMENT and changes nothing.
 */
public final class FaultInjectionService
    extends FaultInjectionServiceGrpc.FaultInjectionServiceImplBase {
  private final NetworkFaults faults;

  public FaultInjectionService(NetworkFaults faults) {
    this.faults = faults;
  }

  @Override
  public void setPartition(SetPartitionRequestPB req,
      StreamObserver<SetPartitionResponsePB> out) {
    SetPartitionResponsePB.Builder resp = SetPartitionResponsePB.newBuilder();
    try {
      faults.block(req.getBlockedPeerUuidsList());
    } catch (NyalaException e) {
      resp.setError(e.toPb());
    }
    out.onNext(resp.setDroppedCalls(faults.droppedCalls()).build());
    out.onCompleted();
  }
}
