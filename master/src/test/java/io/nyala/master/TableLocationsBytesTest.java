package io.nyala.master;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.nyala.common.proto.StatusCodePB;
import io.nyala.common.proto.master.GetTableLocationsRequestPB;
import io.nyala.common.proto.master.GetTableLocationsResponsePB;
import io.nyala.common.proto.master.MasterServiceGrpc;
import io.nyala.common.proto.master.ReplicaTypeFilterPB;
import io.nyala.common.proto.metadata.SysTabletEntryPB;
import io.nyala.common.rpc.RawBytes;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * GetTableLocations answers go out as the bytes the locations cache holds, on a cache hit
 * without a hand-off to the service threads (docs/performance.md, "Locations over RPC"): the
 * bytes on the wire are exactly what the generated marshaller made of the answer before, for
 * hits, misses and errors alike, and the generated stub reads them as it always did.
 */
@Timeout(120)
class TableLocationsBytesTest extends LocationsTestBase {
  /** The method as a client that keeps the response's bytes unparsed sees it. */
  private static final MethodDescriptor<GetTableLocationsRequestPB, byte[]> RAW =
      MasterServiceGrpc.getGetTableLocationsMethod().toBuilder(
          ProtoUtils.marshaller(GetTableLocationsRequestPB.getDefaultInstance()),
          RawBytes.MARSHALLER).build();
  private static final MethodDescriptor.Marshaller<GetTableLocationsResponsePB> GENERATED =
      ProtoUtils.marshaller(GetTableLocationsResponsePB.getDefaultInstance());

  private byte[] sent(GetTableLocationsRequestPB req) {
    return ClientCalls.blockingUnaryCall(m.channel, RAW,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), req);
  }

  /** What the generated marshaller would have put on the wire for {@code resp}. */
  private static byte[] generated(GetTableLocationsResponsePB resp) throws IOException {
    try (InputStream in = GENERATED.stream(resp)) {
      return in.readAllBytes();
    }
  }

  private List<GetTableLocationsRequestPB> requests(String table) {
    String id = tableId(table);
    SysTabletEntryPB third = tabletsOf(id).get(2);
    ByteString insideThird = third.getPartition().getPartitionKeyStart()
        .concat(ByteString.copyFromUtf8("row-17"));
    GetTableLocationsRequestPB whole = GetTableLocationsRequestPB.newBuilder()
        .setTable(Tables.byName(table)).build();
    return List.of(whole,
        // As the bench asks: the whole table, interned tablet server infos.
        whole.toBuilder().setMaxReturnedLocations(1000).setInternTsInfosInResponse(true).build(),
        whole.toBuilder().setTable(Tables.byId(id)).setMaxReturnedLocations(3).build(),
        fromKey(table, insideThird),
        whole.toBuilder().setPartitionKeyStart(insideThird)
            .setPartitionKeyEnd(tabletsOf(id).get(4).getPartition().getPartitionKeyStart())
            .setReplicaTypeFilter(ReplicaTypeFilterPB.VOTER_REPLICA).build(),
        whole.toBuilder().setMaxReturnedLocations(2).build());
  }

  @Test
  void missesAndHitsSendWhatTheGeneratedServiceSent() throws Exception {
    startWithTable("t", 6);
    List<GetTableLocationsRequestPB> requests = requests("t");
    long hits = metric("hits");
    long misses = metric("misses");
    for (GetTableLocationsRequestPB req : requests) {
      GetTableLocationsResponsePB expected = computed(req);
      assertThat(expected.hasError()).isFalse();
      byte[] miss = sent(req);
      byte[] hit = sent(req);
      assertThat(miss).as(req.toString()).isEqualTo(generated(expected));
      assertThat(hit).as(req.toString()).isEqualTo(miss);
      assertThat(GetTableLocationsResponsePB.parseFrom(hit)).isEqualTo(expected);
      assertThat(m.stub().getTableLocations(req)).isEqualTo(expected);
    }
    assertThat(metric("misses")).isEqualTo(misses + requests.size());
    assertThat(metric("hits")).isEqualTo(hits + 2L * requests.size());
    assertThat(metric("lookups")).isEqualTo(metric("hits") + metric("misses"));
  }

  @Test
  void errorsAreSentAsTheGeneratedServiceSentThem() throws Exception {
    startWithTable("t", 2);
    locate("t"); // something cached, so that the refusals are not just an empty cache's
    List<GetTableLocationsRequestPB> bad = List.of(
        GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("nope")).build(),
        GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("t"))
            .setMaxReturnedLocations(0).build(),
        GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("t"))
            .setPartitionKeyStart(ByteString.copyFromUtf8("b"))
            .setPartitionKeyEnd(ByteString.copyFromUtf8("a")).build(),
        GetTableLocationsRequestPB.newBuilder().setTable(Tables.byName("t"))
            .setReplicaTypeFilterValue(7).build());
    for (GetTableLocationsRequestPB req : bad) {
      GetTableLocationsResponsePB expected = computed(req);
      assertThat(expected.hasError()).isTrue();
      assertThat(sent(req)).as(req.toString()).isEqualTo(generated(expected));
      assertThat(m.stub().getTableLocations(req)).isEqualTo(expected);
    }
    assertThat(computed(bad.get(0)).getError().getCode()).isEqualTo(StatusCodePB.NOT_FOUND);
  }
}
