package io.nyala.common.consensus;

import io.nyala.common.NyalaException;
import java.util.UUID;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * Nyala's ids as Ratis ids: a 32-hex tablet id is the group id's UUID, a server's uuid is its peer
 * id, and a client's 16-byte id is its Ratis ClientId (so Ratis' retry cache knows it).
 */
public final class RaftIds {
  private RaftIds() {}

  /** A new 32-hex id for tables, tablets and servers. */
  public static String newId() {
    return UUID.randomUUID().toString().replace("-", "");
  }

  public static UUID uuidOfHex(String hex32) {
    if (hex32 == null || hex32.length() != 32) {
      throw NyalaException.invalidArgument("id '%s' is not 32 hex digits", hex32);
    }
    try {
      return new UUID(Long.parseUnsignedLong(hex32.substring(0, 16), 16),
          Long.parseUnsignedLong(hex32.substring(16), 16));
    } catch (NumberFormatException e) {
      throw NyalaException.invalidArgument("id '%s' is not 32 hex digits", hex32);
    }
  }

  public static String hexOf(UUID u) {
    return String.format("%016x%016x", u.getMostSignificantBits(), u.getLeastSignificantBits());
  }

  public static RaftGroupId groupId(String tabletId) {
    return RaftGroupId.valueOf(uuidOfHex(tabletId));
  }

  public static String tabletId(RaftGroupId gid) {
    return hexOf(gid.getUuid());
  }

  public static RaftPeerId peerId(String serverUuid) {
    return RaftPeerId.valueOf(serverUuid);
  }

  /** A client id from its 16 wire bytes. */
  public static ClientId clientId(byte[] bytes16) {
    if (bytes16.length != 16) {
      throw NyalaException.invalidArgument(
          "client id must be 16 bytes, got %d", bytes16.length);
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes16);
    return ClientId.valueOf(new UUID(b.getLong(), b.getLong()));
  }
}
