package io.nyala.tserver.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.nyala.common.proto.metadata.TabletOpPB;
import io.nyala.common.proto.metadata.WriteOpPB;
import io.nyala.common.proto.tserver.WriteRequestPB;
import io.nyala.common.row.RowOpType;
import io.nyala.tserver.TserverFixture;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The zero-copy write entry parses to exactly the op a plain serialization would give. */
@Timeout(30)
class WritePayloadTest {
  @ParameterizedTest(name = "rows={0}")
  @ValueSource(ints = {0, 1, 7, 5000})
  void parsesToTheSameOpAsAPlainSerialization(int rows) throws Exception {
    WriteRequestPB req = TserverFixture.inserts("t1", 0, rows, RowOpType.INSERT);
    TabletOpPB expected = TabletOpPB.newBuilder().setWrite(WriteOpPB.newBuilder()
        .setSchema(req.getSchema()).setRowOperations(req.getRowOperations())).build();
    byte[] entry = WriteHandler.payload(req).toByteArray();
    assertThat(TabletOpPB.parseFrom(entry)).isEqualTo(expected);
  }
}
