package io.sluice.app;

import io.sluice.app.logging.Logging;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Reloads the configuration file into a {@link LiveConfig} when the file changes, and on SIGHUP.
 *
 * <p>Why the directory and a digest rather than the file's modification events: editors save by
 * writing a new file and renaming it over the old one, and Kubernetes swaps a ConfigMap by
 * re-pointing a symlink ({@code ..data}) in the directory. Neither modifies the watched file in
 * place, but both produce some event in its directory. So any event in the directory triggers a
 * read, and the file's SHA-256 decides whether anything changed: a touch, or an unrelated file,
 * reloads nothing. Events arriving together (a save is often several) are read once, after the
 * directory has been quiet for {@link #SETTLE_MILLIS}.
 *
 * <p>SIGHUP always reloads, digest or not: it is how an operator says "read it now" where file
 * events do not arrive (some network file systems). The JVM's own SIGHUP behaviour (running the
 * shutdown hooks) is replaced while a watcher is running: a reload signal must not stop a server.
 *
 * <p>Every outcome is logged and handed to {@code report}: applied (what changed, by dotted path),
 * rejected (the running configuration stays; the reason names the field) or unchanged.
 */
public final class ConfigWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigWatcher.class);
  static final long SETTLE_MILLIS = 200;

  private final Path file;
  private final LiveConfig live;
  private final Supplier<SluiceConfig> loader;
  private final Consumer<LiveConfig.Outcome> report;
  private final WatchService watch;
  private final Thread thread;
  private volatile boolean closed;
  /** The SIGHUP handler before ours, put back on close. */
  private sun.misc.SignalHandler previousHup;
  private byte[] digest;

  /**
   * @param loader reads and validates {@code file} (the start-up loader, environment included)
   */
  public ConfigWatcher(Path file, LiveConfig live, Supplier<SluiceConfig> loader,
      Consumer<LiveConfig.Outcome> report) throws IOException {
    this.file = file.toAbsolutePath();
    this.live = live;
    this.loader = loader;
    this.report = report;
    this.digest = digestOf(this.file);
    this.watch = FileSystems.getDefault().newWatchService();
    this.file.getParent().register(watch, StandardWatchEventKinds.ENTRY_CREATE,
        StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE);
    this.thread = new Thread(this::watchLoop, "sluice-config-watch");
    this.thread.setDaemon(true);
  }

  /** Starts watching the file and handling SIGHUP. */
  public ConfigWatcher start() {
    thread.start();
    try {
      previousHup = Signal.handle(new Signal("HUP"), signal -> {
        LOG.info("SIGHUP: reloading {}", file);
        reload(true);
      });
      if (previousHup == SignalHandler.SIG_IGN) {
        // The JVM keeps a SIGHUP its process started with ignored (nohup, a parent that ignores
        // it) ignored: our handler is recorded but never runs.
        LOG.warn("SIGHUP is ignored by this process (started under nohup, or by a parent that "
            + "ignores it), so it does not reload; reload by changing {}", file);
      }
    } catch (IllegalArgumentException e) {
      LOG.warn("SIGHUP cannot be handled on this platform ({}); reload by changing {}", e.getMessage(),
          file);
    }
    return this;
  }

  /**
   * Whether SIGHUP reaches this watcher: not when the process started with it ignored (under
   * {@code nohup}), nor where the platform has no SIGHUP. Known once {@link #start} has run.
   */
  public boolean reloadsOnSighup() {
    return previousHup != null && previousHup != SignalHandler.SIG_IGN;
  }

  /** Reads the file now; {@code always}: even if its digest is the one last read. */
  synchronized void reload(boolean always) {
    byte[] now = digestOf(file);
    if (!always && Arrays.equals(now, digest)) {
      return;
    }
    digest = now;
    LiveConfig.Outcome outcome;
    try {
      outcome = live.reload(loader);
    } catch (RuntimeException e) {
      // A role failed to take a configuration already swapped in; the watcher keeps watching.
      LOG.error("configuration from {} swapped in, but a role failed to take it", file, e);
      return;
    }
    if (outcome instanceof LiveConfig.Outcome.Applied applied) {
      LOG.info("configuration reloaded from {}: changed {}", file, applied.changed());
      if (applied.changed().contains("logging")) {
        Logging.apply(live.get().logging());
      }
    } else if (outcome instanceof LiveConfig.Outcome.Rejected rejected) {
      LOG.error("configuration in {} not reloaded, the running one stays: {}", file,
          rejected.reason());
    } else {
      LOG.info("configuration in {} is the one running", file);
    }
    report.accept(outcome);
  }

  private void watchLoop() {
    try {
      while (!closed) {
        WatchKey key = watch.take();
        key.pollEvents();
        key.reset();
        // Let a burst of events (write, rename, chmod) settle into one read.
        WatchKey more;
        while ((more = watch.poll(SETTLE_MILLIS, TimeUnit.MILLISECONDS)) != null) {
          more.pollEvents();
          more.reset();
        }
        reload(false);
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("the configuration watcher stopped; SIGHUP still reloads {}", file, e);
    }
  }

  /** SHA-256 of the file, or empty when it cannot be read (deleted mid-swap): never equal to a real one. */
  private static byte[] digestOf(Path file) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    } catch (IOException e) {
      return new byte[0];
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    if (previousHup != null) {
      Signal.handle(new Signal("HUP"), previousHup);
    }
    watch.close();
    thread.interrupt();
  }
}
