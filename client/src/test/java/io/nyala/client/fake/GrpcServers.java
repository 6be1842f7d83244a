package io.nyala.client.fake;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.nyala.common.HostPort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** Starts fake services on loopback with an ephemeral port. */
final class GrpcServers {
  private GrpcServers() {}

  static Server start(BindableService service) {
    try {
      return NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
          .addService(service).maxInboundMessageSize(64 << 20).build().start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static HostPort address(Server s) {
    return new HostPort("127.0.0.1", s.getPort());
  }

  static void stop(Server s) {
    s.shutdownNow();
    try {
      s.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
