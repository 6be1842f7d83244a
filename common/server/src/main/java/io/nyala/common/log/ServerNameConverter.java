package io.nyala.common.log;

import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.config.plugins.Plugin;
import org.apache.logging.log4j.core.pattern.ConverterKeys;
import org.apache.logging.log4j.core.pattern.LogEventPatternConverter;
import org.apache.logging.log4j.core.pattern.PatternConverter;

/** Pattern {@code %server}: the server a log line belongs to (see {@link LogContext}). */
@Plugin(name = "ServerNameConverter", category = PatternConverter.CATEGORY)
@ConverterKeys({"server"})
public final class ServerNameConverter extends LogEventPatternConverter {
  private static final String PROCESS_NAME = System.getProperty("nyala.server.name", "-");

  private ServerNameConverter() {
    super("server", "server");
  }

  public static ServerNameConverter newInstance(String[] options) {
    return new ServerNameConverter();
  }

  @Override
  public void format(LogEvent event, StringBuilder toAppendTo) {
    String s = event.getContextData().getValue(LogContext.KEY);
    if (s == null) {
      s = LogContext.resolve(event.getThreadName());
    }
    toAppendTo.append(s != null ? s : PROCESS_NAME);
  }
}
