package io.nyala.tserver.fs.log;

import static org.assertj.core.api.Assertions.fail;

import io.nyala.common.env.EncryptionHeader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Everything ever seen on disk in the encrypted files of some directories, per file key (a
 * file's encryption header names its key). AES-CTR's keystream depends only on (file key,
 * offset), so a byte that once held ciphertext and later holds other non-zero ciphertext under
 * the same header means one keystream byte encrypted two plaintexts (zero is a punched hole).
 */
final class CiphertextHistory {
  /** File name + its header → the first non-zero byte seen at each offset. */
  private final Map<String, byte[]> seen = new HashMap<>();

  /** Reads every file of {@code dir}; fails on the first byte whose keystream was reused. */
  void observe(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        observeFile(f);
      }
    }
  }

  private void observeFile(Path f) throws IOException {
    byte[] now = Files.readAllBytes(f);
    if (now.length < EncryptionHeader.SIZE) {
      return;
    }
    String key = f.getFileName() + "/" + HexFormat.of().formatHex(now, 0, EncryptionHeader.SIZE);
    byte[] before = seen.getOrDefault(key, new byte[0]);
    byte[] merged = java.util.Arrays.copyOf(before, Math.max(before.length, now.length));
    for (int i = EncryptionHeader.SIZE; i < now.length; i++) {
      if (i < before.length && before[i] != 0 && now[i] != 0 && before[i] != now[i]) {
        fail("%s: physical offset %d was encrypted twice under one file key (ciphertext %02x, "
            + "then %02x)", f, i, before[i], now[i]);
      }
      if (merged[i] == 0) {
        merged[i] = now[i];
      }
    }
    seen.put(key, merged);
  }
}
