package io.nyala.client;

import io.nyala.client.rpc.Deadline;
import io.nyala.common.NyalaException;
import io.nyala.common.StatusCode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Writes rows: apply {@link Operation}s, which are sent in batches per tablet.
 *
 * <ul>
 *   <li>{@link FlushMode#AUTO_FLUSH_SYNC} (default): {@link #apply} writes the operation and
 *       returns its {@link OperationResponse}.
 *   <li>{@link FlushMode#MANUAL_FLUSH}: {@link #apply} buffers (up to
 *       {@link #setMutationBufferSpace} operations, then it fails) and {@link #flush} writes the
 *       buffer and returns the responses.
 *   <li>{@link FlushMode#AUTO_FLUSH_BACKGROUND}: {@link #apply} buffers; the buffer is written in
 *       the background when it holds {@link #setMutationBufferSpace} operations or
 *       {@link #setMutationBufferMaxBytes} encoded bytes, or {@link #setFlushInterval} after its
 *       first operation. Failed rows are collected for {@link #getPendingErrors}. {@code apply}
 *       blocks while two buffers' worth of operations or bytes are still being written, so
 *       memory stays bounded.
 * </ul>
 *
 * <p>Batches are written one after another, so operations on the same key apply in the order
 * they were applied. A row's failure, including a timeout of its whole batch, is reported as its
 * {@link RowError}, never thrown; only misuse and invalid rows throw. Thread-safe.
 */
public final class NyalaSession implements AutoCloseable {
  /** When applied operations are written. */
  public enum FlushMode {
    /** Each {@code apply} writes its operation and waits for the response. */
    AUTO_FLUSH_SYNC,
    /** Operations are buffered and written in the background. */
    AUTO_FLUSH_BACKGROUND,
    /** Operations are buffered until {@code flush}. */
    MANUAL_FLUSH
  }

  /** Default buffer size, in operations. */
  public static final int DEFAULT_MUTATION_BUFFER_SPACE = 1000;
  /** Default encoded bytes at which AUTO_FLUSH_BACKGROUND flushes its buffer (8 MiB). */
  public static final long DEFAULT_MUTATION_BUFFER_MAX_BYTES = 8L << 20;
  /** Default background flush interval, in milliseconds. */
  public static final long DEFAULT_FLUSH_INTERVAL_MS = 1000;
  /** How many row errors a session keeps for {@link #getPendingErrors}. */
  public static final int MAX_PENDING_ERRORS = 10_000;

  private final AsyncNyalaClient client;
  /** Guards every field below. */
  private final Object lock = new Object();
  private FlushMode flushMode = FlushMode.AUTO_FLUSH_SYNC;
  private int mutationBufferSpace = DEFAULT_MUTATION_BUFFER_SPACE;
  private long mutationBufferMaxBytes = DEFAULT_MUTATION_BUFFER_MAX_BYTES;
  private long flushIntervalMs = DEFAULT_FLUSH_INTERVAL_MS;
  private long timeoutMs;
  private final SessionBuffer buffer = new SessionBuffer();
  private int opsInFlight;
  private long bytesInFlight;
  /** The last flush started; each flush starts after the previous one has finished. */
  private CompletableFuture<List<OperationResponse>> lastFlush =
      CompletableFuture.completedFuture(List.of());
  private final List<RowError> pendingErrors = new ArrayList<>();
  private boolean pendingErrorsOverflowed;
  private boolean closed;

  NyalaSession(AsyncNyalaClient client) {
    this.client = client;
    this.timeoutMs = client.getDefaultOperationTimeoutMs();
  }

  /**
   * Applies an operation as the flush mode says.
   *
   * @param op the operation; do not change its row afterwards
   * @return its response in AUTO_FLUSH_SYNC mode; null in the buffered modes
   * @throws NyalaException INVALID_ARGUMENT for an invalid row (naming the column),
   *     ILLEGAL_STATE if the session is closed or, in MANUAL_FLUSH mode, its buffer is full
   */
  public OperationResponse apply(Operation op) {
    op.validate();
    // Sized outside the lock; a mode changed meanwhile only makes the size a guess.
    long opBytes = getFlushMode() == FlushMode.AUTO_FLUSH_BACKGROUND
        ? SessionBuffer.encodedBytes(op) : 0;
    CompletableFuture<List<OperationResponse>> written;
    synchronized (lock) {
      checkOpen();
      switch (flushMode) {
        case MANUAL_FLUSH -> {
          if (buffer.size() >= mutationBufferSpace) {
            throw NyalaException.illegalState("session buffer is full (%d operations); call "
                + "flush() before applying more, or raise setMutationBufferSpace", buffer.size());
          }
          buffer.add(op, 0);
          return null;
        }
        case AUTO_FLUSH_BACKGROUND -> {
          applyInBackgroundLocked(op, opBytes);
          return null;
        }
        default -> written = startFlushLocked(new SessionBuffer.Taken(List.of(op), 0), false);
      }
    }
    return Sync.join(written).get(0);
  }

  private void applyInBackgroundLocked(Operation op, long opBytes) {
    while (opsInFlight >= 2 * mutationBufferSpace
        || (opsInFlight > 0 && bytesInFlight >= 2 * mutationBufferMaxBytes)) {
      try {
        lock.wait();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new NyalaException(StatusCode.ABORTED,
            "interrupted while waiting for buffer space", e);
      }
      checkOpen();
    }
    buffer.add(op, opBytes);
    if (buffer.size() >= mutationBufferSpace || buffer.bytes() >= mutationBufferMaxBytes) {
      startFlushLocked(buffer.take(), true);
    } else if (buffer.size() == 1) {
      long generation = buffer.generation();
      client.transport().schedule(() -> flushIfStill(generation), flushIntervalMs);
    }
  }

  private void flushIfStill(long generation) {
    synchronized (lock) {
      if (generation == buffer.generation() && !buffer.isEmpty()) {
        startFlushLocked(buffer.take(), true);
      }
    }
  }

  private CompletableFuture<List<OperationResponse>> startFlushLocked(SessionBuffer.Taken taken,
      boolean collectErrors) {
    List<Operation> ops = taken.ops();
    int n = ops.size();
    long bytes = taken.bytes();
    long timeout = timeoutMs;
    opsInFlight += n;
    bytesInFlight += bytes;
    // whenComplete's future completes after the bookkeeping, so whoever waits on lastFlush sees
    // its errors collected.
    lastFlush = lastFlush.handle((r, e) -> null)
        .thenCompose(v -> client.batcher().flush(ops, Deadline.after(timeout)))
        .whenComplete((responses, err) -> onFlushed(n, bytes, collectErrors ? responses : null));
    return lastFlush;
  }

  private void onFlushed(int n, long bytes, List<OperationResponse> toCollect) {
    synchronized (lock) {
      opsInFlight -= n;
      bytesInFlight -= bytes;
      if (toCollect != null) {
        for (OperationResponse r : toCollect) {
          if (!r.hasRowError()) {
            continue;
          }
          if (pendingErrors.size() < MAX_PENDING_ERRORS) {
            pendingErrors.add(r.getRowError());
          } else {
            pendingErrorsOverflowed = true;
          }
        }
      }
      lock.notifyAll();
    }
  }

  /**
   * Writes the buffered operations and waits for them and every earlier flush.
   *
   * @return the responses of the operations this call wrote (empty if the buffer was empty)
   */
  public List<OperationResponse> flush() {
    return Sync.join(flushAsync());
  }

  /**
   * Starts writing the buffered operations.
   *
   * @return completes when they and every earlier flush are written, with the responses of the
   *     operations this call started writing
   */
  public CompletableFuture<List<OperationResponse>> flushAsync() {
    synchronized (lock) {
      if (!buffer.isEmpty()) {
        return startFlushLocked(buffer.take(), flushMode == FlushMode.AUTO_FLUSH_BACKGROUND);
      }
      return lastFlush.handle((r, e) -> List.of());
    }
  }

  /** Flushes and closes the session; later {@code apply} calls fail. Idempotent. */
  @Override
  public void close() {
    CompletableFuture<List<OperationResponse>> last;
    synchronized (lock) {
      if (closed) {
        return;
      }
      closed = true;
      if (!buffer.isEmpty()) {
        startFlushLocked(buffer.take(), flushMode == FlushMode.AUTO_FLUSH_BACKGROUND);
      }
      last = lastFlush;
      lock.notifyAll();
    }
    try {
      Sync.join(last);
    } finally {
      client.sessionClosed(this);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw NyalaException.illegalState("session is closed");
    }
  }

  /**
   * Sets the flush mode; only while nothing is buffered.
   *
   * @param mode the new mode
   * @throws NyalaException ILLEGAL_STATE if operations are buffered
   */
  public void setFlushMode(FlushMode mode) {
    synchronized (lock) {
      if (!buffer.isEmpty()) {
        throw NyalaException.illegalState("cannot change the flush mode to %s with %d buffered "
            + "operations; flush first", mode, buffer.size());
      }
      flushMode = mode;
    }
  }

  /** @return the flush mode */
  public FlushMode getFlushMode() {
    synchronized (lock) {
      return flushMode;
    }
  }

  /**
   * Sets how many operations the buffer holds: the MANUAL_FLUSH limit and the size at which
   * AUTO_FLUSH_BACKGROUND flushes.
   *
   * @param operations at least 1 (default 1000)
   */
  public void setMutationBufferSpace(int operations) {
    if (operations < 1) {
      throw NyalaException.invalidArgument("mutation buffer space must be at least 1, got %d",
          operations);
    }
    synchronized (lock) {
      mutationBufferSpace = operations;
    }
  }

  /**
   * Sets the encoded bytes at which AUTO_FLUSH_BACKGROUND flushes its buffer (whichever of this
   * and {@link #setMutationBufferSpace} comes first); two buffers' worth may be in flight.
   *
   * @param bytes at least 1 (default 8 MiB)
   */
  public void setMutationBufferMaxBytes(long bytes) {
    if (bytes < 1) {
      throw NyalaException.invalidArgument("mutation buffer max bytes must be at least 1, got %d",
          bytes);
    }
    synchronized (lock) {
      mutationBufferMaxBytes = bytes;
    }
  }

  /**
   * Sets how long AUTO_FLUSH_BACKGROUND keeps an operation buffered before flushing it.
   *
   * @param millis at least 1 (default 1000)
   */
  public void setFlushInterval(long millis) {
    if (millis < 1) {
      throw NyalaException.invalidArgument("flush interval must be at least 1 ms, got %d", millis);
    }
    synchronized (lock) {
      flushIntervalMs = millis;
    }
  }

  /**
   * Sets the time allowed to write each batch, retries included.
   *
   * @param millis positive (default: the client's operation timeout)
   */
  public void setTimeoutMillis(long millis) {
    if (millis < 1) {
      throw NyalaException.invalidArgument("session timeout must be positive, got %d", millis);
    }
    synchronized (lock) {
      timeoutMs = millis;
    }
  }

  /** @return the time allowed to write each batch, in milliseconds */
  public long getTimeoutMillis() {
    synchronized (lock) {
      return timeoutMs;
    }
  }

  /** @return how many operations are buffered and not yet being written */
  public int countBufferedOperations() {
    synchronized (lock) {
      return buffer.size();
    }
  }

  /** @return whether operations are buffered or being written */
  public boolean hasPendingOperations() {
    synchronized (lock) {
      return !buffer.isEmpty() || opsInFlight > 0;
    }
  }

  /** @return how many row errors background flushes have collected */
  public int countPendingErrors() {
    synchronized (lock) {
      return pendingErrors.size();
    }
  }

  /**
   * Takes the row errors that background flushes collected (AUTO_FLUSH_BACKGROUND mode only;
   * the other modes hand errors back directly).
   *
   * @return the errors and whether some were dropped; the session's store is emptied
   */
  public RowErrorsAndOverflowStatus getPendingErrors() {
    synchronized (lock) {
      RowErrorsAndOverflowStatus s =
          new RowErrorsAndOverflowStatus(pendingErrors, pendingErrorsOverflowed);
      pendingErrors.clear();
      pendingErrorsOverflowed = false;
      return s;
    }
  }

  /** @return whether the session is closed */
  public boolean isClosed() {
    synchronized (lock) {
      return closed;
    }
  }
}
