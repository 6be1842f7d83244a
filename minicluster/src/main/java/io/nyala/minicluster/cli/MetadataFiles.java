package io.nyala.minicluster.cli;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import com.google.protobuf.util.JsonFormat;
import io.nyala.common.NyalaException;
import io.nyala.common.env.EncryptionHeader;
import io.nyala.common.env.Env;
import io.nyala.common.env.OpenOptions;
import io.nyala.common.fs.ServerFs;
import io.nyala.common.proto.metadata.InstancePB;
import io.nyala.common.proto.metadata.SysCatalogSnapshotPB;
import io.nyala.common.proto.metadata.TabletMetadataPB;
import io.nyala.common.security.FileKeyProvider;
import io.nyala.common.security.KeyMaterial;
import io.nyala.common.security.WrappedKey;
import io.nyala.master.catalog.SysCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads and decodes a server's metadata files for {@code nyala pbc dump}: tells an encrypted
 * file from a plain one by its header, decrypts with the server key (unwrapped from the
 * server's instance file with the cluster key file), and picks the record type from the file's
 * name and place: {@code instance}, {@code tablet-meta/<tablet id>}, or a sys catalog
 * {@code snapshot.<term>_<index>}.
 */
final class MetadataFiles {
  private MetadataFiles() {}

  /** Whether the file starts with the encrypted-file header. */
  static boolean isEncrypted(Path file) {
    byte[] head = new byte[EncryptionHeader.SIZE];
    try (InputStream in = Files.newInputStream(file)) {
      int n = in.readNBytes(head, 0, head.length);
      return n == head.length && EncryptionHeader.hasMagic(head);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The logical content of {@code file}: as stored if plain; decrypted if encrypted, with the
   * server key of {@code instanceFile} (null: the nearest {@code instance} file above
   * {@code file}) unwrapped by the cluster key in {@code keyFile}.
   */
  static byte[] read(Path file, Path instanceFile, Path keyFile) {
    if (!isEncrypted(file)) {
      try {
        return Files.readAllBytes(file);
      } catch (IOException e) {
        throw NyalaException.ioError("cannot read " + file + ": " + e.getMessage(), e);
      }
    }
    if (keyFile == null) {
      throw NyalaException.invalidArgument("%s is encrypted: give --encryption_key_file (the "
          + "cluster key file)", file);
    }
    Path instance = instanceFile != null ? instanceFile : findInstance(file);
    InstancePB pb = ServerFs.readInstance(instance);
    if (pb.getWrappedServerKey().isEmpty()) {
      throw NyalaException.invalidArgument("%s is encrypted but %s holds no server key; give "
          + "the server's --fs_wal_dir", file, instance);
    }
    return serverEnv(instance, pb, keyFile).readFile(file, OpenOptions.SENSITIVE);
  }

  /**
   * The encrypting env of the server whose instance file {@code instance} (content {@code pb})
   * holds a wrapped server key, unwrapped with the cluster key in {@code keyFile}: NOT_FOUND
   * naming a missing key file, CORRUPTION naming the instance file for a wrong key.
   */
  static Env serverEnv(Path instance, InstancePB pb, Path keyFile) {
    KeyMaterial serverKey = FileKeyProvider.open(keyFile).unwrapServerKey(
        new WrappedKey(pb.getServerKeyVersion(), pb.getWrappedServerKey().toByteArray()),
        "server key in instance file " + instance);
    return Env.encrypted(serverKey, pb.getServerKeyBits());
  }

  /** The nearest {@code instance} file in a directory above {@code file} (its server root). */
  static Path findInstance(Path file) {
    for (Path d = file.toAbsolutePath().getParent(); d != null; d = d.getParent()) {
      Path candidate = d.resolve(ServerFs.INSTANCE);
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw NyalaException.notFound("no instance file in any directory above %s; give "
        + "--fs_wal_dir", file);
  }

  /** Decodes {@code content} as the record type {@code file}'s name and place imply. */
  static Message decode(Path file, byte[] content) {
    String name = file.getFileName().toString();
    Path parent = file.toAbsolutePath().getParent();
    try {
      if (name.equals(ServerFs.INSTANCE)) {
        return InstancePB.parseFrom(content);
      }
      if (parent != null && parent.getFileName().toString().equals("tablet-meta")) {
        return TabletMetadataPB.parseFrom(content);
      }
      String catalogGroup = SysCatalog.GROUP_ID.getUuid().toString();
      boolean inCatalog = Arrays.stream(file.toAbsolutePath().toString().split("/"))
          .anyMatch(catalogGroup::equals);
      if (name.startsWith("snapshot.") && !name.endsWith(".md5") && inCatalog) {
        return SysCatalogSnapshotPB.parseFrom(content);
      }
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.corruption("%s: not a valid record of its type: %s", file,
          e.getMessage());
    }
    throw NyalaException.invalidArgument("%s: unknown record type (known: instance, "
        + "tablet-meta/<tablet id>, the sys catalog's snapshot.<term>_<index>)", file);
  }

  /** Protobuf text format, or JSON. */
  static String format(Message m, boolean json) {
    if (!json) {
      return TextFormat.printer().printToString(m);
    }
    try {
      return JsonFormat.printer().print(m);
    } catch (InvalidProtocolBufferException e) {
      throw NyalaException.invalidArgument("cannot print as JSON: %s", e.getMessage());
    }
  }
}
