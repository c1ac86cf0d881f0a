package dev.dptext.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** Captures every log line (root at DEBUG) while open: messages and exception texts. */
public final class LogCapture extends AbstractAppender implements AutoCloseable {
  private final List<String> lines = new ArrayList<>();
  private final Level previous;

  public LogCapture() {
    super("dptext-capture", null, null, true, Property.EMPTY_ARRAY);
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration config = ctx.getConfiguration();
    start();
    LoggerConfig root = config.getRootLogger();
    previous = root.getLevel();
    root.addAppender(this, Level.ALL, null);
    config.getLoggers().values().forEach(l -> {
      if (l != root) {
        l.addAppender(this, Level.ALL, null);
      }
    });
    ctx.updateLoggers();
    org.apache.logging.log4j.core.config.Configurator.setAllLevels(LogManager.ROOT_LOGGER_NAME, Level.DEBUG);
  }

  @Override
  public synchronized void append(LogEvent event) {
    lines.add(event.getMessage().getFormattedMessage());
    Throwable t = event.getThrown();
    while (t != null) {
      lines.add(String.valueOf(t.getMessage()));
      t = t.getCause();
    }
  }

  public synchronized List<String> lines() {
    return new ArrayList<>(lines);
  }

  @Override
  public void close() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration config = ctx.getConfiguration();
    config.getRootLogger().removeAppender(getName());
    config.getLoggers().values().forEach(l -> l.removeAppender(getName()));
    ctx.updateLoggers();
    org.apache.logging.log4j.core.config.Configurator.setAllLevels(LogManager.ROOT_LOGGER_NAME, previous);
    stop();
  }
}
