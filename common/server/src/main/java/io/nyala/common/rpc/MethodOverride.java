package io.nyala.common.rpc;

import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;

/**
 * Rebinds one method of a service definition with another descriptor (other marshallers) and
 * handler, leaving the rest as generated. gRPC insists that the service descriptor and the bound
 * methods hold the very same descriptor instances, so both are rebuilt.
 */
final class MethodOverride {
  private MethodOverride() {}

  /**
   * {@code def} with the method named as {@code replacement} served by {@code handler}.
   *
   * @throws IllegalArgumentException if {@code def} has no method of that name
   */
  static <Q, R> ServerServiceDefinition replace(ServerServiceDefinition def,
      MethodDescriptor<Q, R> replacement, ServerCallHandler<Q, R> handler) {
    String name = find(def, replacement).getMethodDescriptor().getFullMethodName();
    ServiceDescriptor old = def.getServiceDescriptor();
    ServiceDescriptor.Builder sd = ServiceDescriptor.newBuilder(old.getName())
        .setSchemaDescriptor(old.getSchemaDescriptor());
    for (MethodDescriptor<?, ?> m : old.getMethods()) {
      sd.addMethod(m.getFullMethodName().equals(name) ? replacement : m);
    }
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(sd.build());
    for (ServerMethodDefinition<?, ?> m : def.getMethods()) {
      if (m.getMethodDescriptor().getFullMethodName().equals(name)) {
        b.addMethod(replacement, handler);
      } else {
        b.addMethod(m);
      }
    }
    return b.build();
  }

  /**
   * The method of {@code def} named as {@code method}.
   *
   * @throws IllegalArgumentException if {@code def} has none
   */
  static ServerMethodDefinition<?, ?> find(ServerServiceDefinition def,
      MethodDescriptor<?, ?> method) {
    ServerMethodDefinition<?, ?> m = def.getMethod(method.getFullMethodName());
    if (m == null) {
      throw new IllegalArgumentException(def.getServiceDescriptor().getName() + " has no method "
          + method.getFullMethodName());
    }
    return m;
  }
}
