package io.nyala.common.env;

import io.nyala.common.NyalaException;
import io.nyala.common.security.KeyMaterial;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** The local-disk {@link Env}; encrypting iff built with a server key. Thread-safe, stateless. */
final class DiskEnv implements Env {
  /** Null when not encrypting. */
  private final KeyMaterial serverKey;
  /** Algorithm of newly created encrypted files; null when not encrypting. */
  private final CipherAlgorithm newFileAlgorithm;
  /** Injected disk faults (none unless a test or a fault flag sets some). */
  private final DiskFaults faults;

  DiskEnv(KeyMaterial serverKey, CipherAlgorithm newFileAlgorithm, DiskFaults faults) {
    this.serverKey = serverKey;
    this.newFileAlgorithm = newFileAlgorithm;
    this.faults = faults;
  }

  @Override
  public boolean isEncrypting() {
    return serverKey != null;
  }

  private boolean encrypts(OpenOptions opts) {
    return opts.sensitive() && serverKey != null;
  }

  @Override
  public SequentialFile newSequentialFile(Path path, OpenOptions opts) {
    return new DiskFiles.Sequential(openForRead(path, opts));
  }

  @Override
  public RandomReadFile newRandomReadFile(Path path, OpenOptions opts) {
    return new DiskFiles.ReadWrite(openForRead(path, opts));
  }

  @Override
  public WritableFile newWritableFile(Path path, OpenOptions opts) {
    OpenMode m = opts.mode() == OpenMode.DEFAULT ? OpenMode.CREATE_OR_TRUNCATE : opts.mode();
    return new DiskFiles.Writable(openForWrite(path, opts, m));
  }

  @Override
  public ReadWriteFile newReadWriteFile(Path path, OpenOptions opts) {
    OpenMode m = opts.mode() == OpenMode.DEFAULT ? OpenMode.CREATE_OR_OPEN : opts.mode();
    return new DiskFiles.ReadWrite(openForWrite(path, opts, m));
  }

  private FileBackend openForRead(Path path, OpenOptions opts) {
    FileChannel ch = open(path, Set.of(StandardOpenOption.READ));
    return attach(path, ch, encrypts(opts), false);
  }

  private FileBackend openForWrite(Path path, OpenOptions opts, OpenMode mode) {
    Set<OpenOption> o = new HashSet<>(List.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
    switch (mode) {
      case CREATE_NEW -> o.add(StandardOpenOption.CREATE_NEW);
      case CREATE_OR_TRUNCATE -> {
        o.add(StandardOpenOption.CREATE);
        o.add(StandardOpenOption.TRUNCATE_EXISTING);
      }
      case CREATE_OR_OPEN -> o.add(StandardOpenOption.CREATE);
      default -> { }
    }
    return attach(path, open(path, o), encrypts(opts), true);
  }

  /** Reads or (for an empty file opened to write) writes the encryption header. */
  private FileBackend attach(Path path, FileChannel ch, boolean encrypted, boolean writing) {
    if (!encrypted) {
      return new FileBackend(path, ch, writing, null, faults);
    }
    FileBackend raw = new FileBackend(path, ch, writing, null, faults);
    try {
      AesCtr ctr;
      if (writing && raw.size() == 0) {
        // Empty: new, or created by a crash before its header was written; no data to lose.
        KeyMaterial fileKey = KeyMaterial.random(newFileAlgorithm.keyBits());
        byte[] h = EncryptionHeader.create(newFileAlgorithm, fileKey, serverKey);
        raw.pwriteRaw(0, h, 0, h.length);
        ctr = new AesCtr(fileKey);
      } else {
        byte[] h = new byte[EncryptionHeader.SIZE];
        int got = raw.preadRaw(0, h, 0, h.length);
        ctr = new AesCtr(EncryptionHeader.parse(path.toString(), h, got, serverKey).fileKey());
      }
      // The raw view's channel: an interrupt may have made it reopen the file.
      return new FileBackend(path, raw.channel(), writing, ctr, faults);
    } catch (RuntimeException e) {
      closeQuietly(raw.channel(), e);
      throw e;
    }
  }

  private static FileChannel open(Path path, Set<OpenOption> options) {
    try {
      return FileChannel.open(path, options);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("file %s does not exist", path);
    } catch (FileAlreadyExistsException e) {
      throw NyalaException.alreadyPresent("file %s already exists", path);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot open " + path + ": " + e, e);
    }
  }

  private static void closeQuietly(FileChannel ch, Exception primary) {
    try {
      ch.close();
    } catch (IOException e) {
      primary.addSuppressed(e);
    }
  }

  @Override
  public void deleteFile(Path path) {
    try {
      Files.delete(path);
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("cannot delete %s: it does not exist", path);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot delete " + path + ": " + e, e);
    }
  }

  @Override
  public void renameFile(Path from, Path to) {
    try {
      try {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("cannot rename %s to %s: it does not exist", from, to);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot rename " + from + " to " + to + ": " + e, e);
    }
  }

  @Override
  public void syncDir(Path dir) {
    try {
      faults.check(DiskFaults.Op.SYNC, dir);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot sync directory " + dir + ": " + e, e);
    }
    DurableDirs.sync(dir);
  }

  @Override
  public boolean exists(Path path) {
    return Files.exists(path);
  }

  @Override
  public List<String> listDir(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      List<String> names = new ArrayList<>();
      s.forEach(p -> names.add(p.getFileName().toString()));
      names.sort(null);
      return names;
    } catch (NoSuchFileException e) {
      throw NyalaException.notFound("directory %s does not exist", dir);
    } catch (IOException e) {
      throw NyalaException.ioError("cannot list " + dir + ": " + e, e);
    }
  }

  @Override
  public void createDirs(Path dir) {
    DurableDirs.create(dir);
  }

  @Override
  public void replaceFile(Path path, byte[] content, OpenOptions opts) {
    Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
    try (WritableFile f = newWritableFile(tmp, opts.withMode(OpenMode.CREATE_OR_TRUNCATE))) {
      f.append(content);
      f.sync();
    }
    renameFile(tmp, path);
    syncDir(path.toAbsolutePath().getParent());
  }

  @Override
  public byte[] readFile(Path path, OpenOptions opts) {
    try (RandomReadFile f = newRandomReadFile(path, opts)) {
      long size = f.size();
      if (size > Integer.MAX_VALUE - 16) {
        throw NyalaException.invalidArgument("%s: %d bytes is too large to read whole", path, size);
      }
      return f.readFully(0, (int) size);
    }
  }

  @Override
  public String toString() {
    return isEncrypting() ? "DiskEnv[encrypting, new files " + newFileAlgorithm + "]"
        : "DiskEnv[plain]";
  }
}
