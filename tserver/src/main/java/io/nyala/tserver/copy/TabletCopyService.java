package io.nyala.tserver.copy;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.tserver.BeginTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.BeginTabletCopySessionResponsePB;
import io.nyala.common.proto.tserver.EndTabletCopySessionRequestPB;
import io.nyala.common.proto.tserver.EndTabletCopySessionResponsePB;
import io.nyala.common.proto.tserver.FetchDataRequestPB;
import io.nyala.common.proto.tserver.FetchDataResponsePB;
import io.nyala.common.proto.tserver.TabletCopyItemPB;
import io.nyala.common.proto.tserver.TabletCopyServiceGrpc;
import io.nyala.common.rpc.Rpcs;
import io.nyala.tserver.tablet.image.TabletImage;
import java.io.IOException;
import java.util.zip.CRC32C;

/** The source side of tablet copy over gRPC; every failure becomes the response's error. */
public final class TabletCopyService extends TabletCopyServiceGrpc.TabletCopyServiceImplBase {
  /** Largest chunk served, whatever the request asks: well under gRPC's message limit. */
  static final int MAX_CHUNK = 1 << 20;

  private final CopySessions sessions;

  public TabletCopyService(CopySessions sessions) {
    this.sessions = sessions;
  }

  @Override
  public void beginTabletCopySession(BeginTabletCopySessionRequestPB req,
      StreamObserver<BeginTabletCopySessionResponsePB> out) {
    Rpcs.respond(out, () -> {
      CopySessions.Session s = io(() -> sessions.begin(req.getTabletId(), req.getRequestorUuid()));
      BeginTabletCopySessionResponsePB.Builder b = BeginTabletCopySessionResponsePB.newBuilder()
          .setSessionId(s.id)
          .setManifest(ByteString.copyFrom(s.image.manifest()))
          .setLastIndex(s.image.lastIndex())
          .setLastTerm(s.image.lastTerm());
      for (TabletImage.Item item : s.image.items()) {
        b.addItems(TabletCopyItemPB.newBuilder().setItemId(item.id()).setLength(item.length()));
      }
      return b.build();
    }, e -> BeginTabletCopySessionResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void fetchData(FetchDataRequestPB req, StreamObserver<FetchDataResponsePB> out) {
    Rpcs.respond(out, () -> {
      if (req.getMaxLength() <= 0) {
        throw NyalaException.invalidArgument("FetchData of session '%s' asks for %d bytes",
            req.getSessionId(), req.getMaxLength());
      }
      CopySessions.Session s = sessions.get(req.getSessionId());
      byte[] buf = new byte[Math.min(req.getMaxLength(), MAX_CHUNK)];
      int n = io(() -> s.image.read(req.getItemId(), req.getOffset(), buf, 0, buf.length));
      CRC32C crc = new CRC32C();
      crc.update(buf, 0, n);
      return FetchDataResponsePB.newBuilder().setData(ByteString.copyFrom(buf, 0, n))
          .setCrc32C((int) crc.getValue()).build();
    }, e -> FetchDataResponsePB.newBuilder().setError(e).build());
  }

  @Override
  public void endTabletCopySession(EndTabletCopySessionRequestPB req,
      StreamObserver<EndTabletCopySessionResponsePB> out) {
    Rpcs.respond(out, () -> {
      sessions.end(req.getSessionId());
      return EndTabletCopySessionResponsePB.getDefaultInstance();
    }, e -> EndTabletCopySessionResponsePB.newBuilder().setError(e).build());
  }

  @FunctionalInterface
  private interface IoCall<T> {
    T call() throws IOException;
  }

  private static <T> T io(IoCall<T> c) {
    try {
      return c.call();
    } catch (IOException e) {
      throw NyalaException.ioError("tablet copy: " + e.getMessage(), e);
    }
  }
}
