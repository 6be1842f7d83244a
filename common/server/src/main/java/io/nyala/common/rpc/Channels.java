package io.nyala.common.rpc;

import io.grpc.ClientInterceptor;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.nyala.common.HostPort;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One gRPC channel per peer address, shared by a server's outgoing calls: plaintext, or TLS once
 * {@link #useTls} is set (docs/architecture.md, "TLS on the wire").
 */
public final class Channels implements AutoCloseable {
  private final Map<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();
  /** Applied to every channel made after it is set (a server's caller identity). */
  private volatile ClientInterceptor interceptor;
  /** TLS of the channels made after it is set; null for plaintext. */
  private volatile SslContext tls;

  /**
   * Runs every call of the channels made from now on through {@code i}: a server sets its caller
   * identity once it knows its uuid, before its first outgoing call.
   */
  public Channels intercept(ClientInterceptor i) {
    this.interceptor = i;
    return this;
  }

  /**
   * Makes the channels from now on speak TLS with {@code context} (null: plaintext): a server
   * sets it at construction, before its first outgoing call.
   */
  public Channels useTls(SslContext context) {
    this.tls = context;
    return this;
  }

  /**
   * The channel to {@code addr}, made on first use. A channel in gRPC's reconnect backoff (after
   * failing to connect: 1 s, 1.6 s, 2.6 s, ... up to 2 min, during which every call fails at
   * once) is asked to reconnect now: a peer that restarted is reached on the next call, not
   * when the backoff ends; the callers' own retry delays pace the reconnects.
   */
  public ManagedChannel get(HostPort addr) {
    ManagedChannel ch = channel(addr);
    if (ch.getState(false) == ConnectivityState.TRANSIENT_FAILURE) {
      ch.resetConnectBackoff();
    }
    return ch;
  }

  private ManagedChannel channel(HostPort addr) {
    return channels.computeIfAbsent(addr, a -> {
      NettyChannelBuilder b = NettyChannelBuilder.forAddress(a.host(), a.port())
          .maxInboundMessageSize(64 << 20);
      SslContext t = tls;
      if (t != null) {
        b.sslContext(t);
      } else {
        b.usePlaintext();
      }
      ClientInterceptor i = interceptor;
      if (i != null) {
        b.intercept(i);
      }
      return b.build();
    });
  }

  @Override
  public void close() {
    for (ManagedChannel c : channels.values()) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels.values()) {
      try {
        c.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    channels.clear();
  }
}
