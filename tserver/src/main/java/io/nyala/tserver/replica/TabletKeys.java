package io.nyala.tserver.replica;

import com.google.protobuf.ByteString;
import io.nyala.common.NyalaException;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.proto.tserver.CreateTabletRequestPB;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.KeyProvider;
import io.nyala.common.security.KeyWrap;
import io.nyala.common.security.WrappedKey;
import java.nio.file.Path;

/**
 * Tablet data keys on this server (docs/encryption.md): a key arrives in CreateTablet wrapped by
 * the cluster key and is kept in the tablet's metadata wrapped by this server's key, so opening
 * a tablet needs no call to the key provider.
 */
final class TabletKeys {
  /** Null when this server does not encrypt. */
  private final KeyProvider keys;
  /** Null when this server does not encrypt. */
  private final KeyMaterial serverKey;

  TabletKeys(KeyProvider keys, KeyMaterial serverKey) {
    this.keys = keys;
    this.serverKey = serverKey;
  }

  /** The key of the tablet {@code meta} (read from {@code file}), or null if not encrypted. */
  KeyMaterial unwrap(TabletMetadataPB meta, Path file) {
    if (meta.getWrappedTabletKey().isEmpty()) {
      return null;
    }
    if (serverKey == null) {
      throw NyalaException.illegalState("tablet metadata %s holds an encrypted tablet key but "
          + "this server does not encrypt", file);
    }
    return KeyWrap.unwrap(serverKey, meta.getWrappedTabletKey().toByteArray(),
        "tablet key in " + file);
  }

  /**
   * The tablet key, unwrapped with the cluster key it came under and wrapped again by this
   * server's key; empty for a tablet that is not encrypted.
   */
  ByteString rewrap(CreateTabletRequestPB req) {
    boolean hasKey = !req.getWrappedTabletKey().isEmpty();
    if (keys == null) {
      if (hasKey) {
        throw NyalaException.invalidArgument("tablet %s is encrypted but this server runs "
            + "without --encrypt_data_at_rest", req.getTabletId());
      }
      return ByteString.EMPTY;
    }
    if (!hasKey) {
      throw NyalaException.invalidArgument("tablet %s has no tablet key but this server "
          + "encrypts; is the master running with --encrypt_data_at_rest?", req.getTabletId());
    }
    KeyMaterial tabletKey = keys.unwrapServerKey(new WrappedKey(req.getTabletKeyVersion(),
        req.getWrappedTabletKey().toByteArray()), "tablet key of " + req.getTabletId());
    return ByteString.copyFrom(KeyWrap.wrap(serverKey, tabletKey));
  }
}
