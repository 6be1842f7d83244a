package io.nyala.docker;

import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.output.OutputFrame;

/**
 * Passes each line a server container prints to SLF4J (logger {@code io.nyala.docker.server},
 * level INFO) prefixed with the server's name, e.g. {@code [ts-2] tablet ... RUNNING}, so that
 * the lines of a cluster's servers stay apart in a test's output.
 */
public final class ServerLogConsumer implements Consumer<OutputFrame> {
  private static final Logger LOG = LoggerFactory.getLogger("io.nyala.docker.server");

  private final String serverName;
  private final Consumer<String> sink;

  /** A consumer for the container of server {@code serverName}. */
  public ServerLogConsumer(String serverName) {
    this(serverName, LOG::info);
  }

  /** A consumer that hands each prefixed line to {@code sink}. */
  ServerLogConsumer(String serverName, Consumer<String> sink) {
    this.serverName = serverName;
    this.sink = sink;
  }

  @Override
  public void accept(OutputFrame frame) {
    if (frame.getType() == OutputFrame.OutputType.END) {
      return;
    }
    String text = frame.getUtf8StringWithoutLineEnding();
    for (String line : text.split("\n", -1)) {
      sink.accept("[" + serverName + "] " + line);
    }
  }
}
