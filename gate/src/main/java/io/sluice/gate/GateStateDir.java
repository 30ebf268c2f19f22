package io.sluice.gate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scratch directory a gate gives Kafka Streams ({@code state.dir}). The gate keeps no state
 * stores; Streams only keeps its locks and process id there. One per gate, removed when the gate
 * closes, and, since a SIGKILLed gate leaves its own behind, stale ones are removed when a gate
 * starts.
 *
 * <p>Only Sluice's own directories are ever removed: those named {@value #PREFIX}… directly under
 * the parent that hold the {@value #LOCK} file this class writes, and only when no process holds
 * that file's lock. A live gate holds it for its whole life (an OS lock, released when its process
 * dies however it dies), so a directory in use, by this JVM or another, is never touched.
 * Directories of other applications, or of gates older than this class (no lock file), are left.
 */
public final class GateStateDir implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GateStateDir.class);
  static final String PREFIX = "sluice-gate-";
  static final String LOCK = "sluice-gate.lock";

  private final Path path;
  private final FileChannel channel;
  private final FileLock lock;

  private GateStateDir(Path path, FileChannel channel, FileLock lock) {
    this.path = path;
    this.channel = channel;
    this.lock = lock;
  }

  /** Removes stale directories under {@code parent}, then creates and locks a new one there. */
  public static GateStateDir create(Path parent) {
    removeStale(parent);
    try {
      // Locked under a name no sweep looks at, then renamed: a gate starting beside it never
      // finds it with its lock file not yet held.
      Path starting = Files.createTempDirectory(parent, "." + PREFIX);
      FileChannel channel = FileChannel.open(starting.resolve(LOCK), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      FileLock lock = channel.lock();
      Path dir = Files.move(starting, parent.resolve(starting.getFileName().toString().substring(1)),
          StandardCopyOption.ATOMIC_MOVE);
      return new GateStateDir(dir, channel, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("gate: cannot create its Kafka Streams state directory under "
          + parent, e);
    }
  }

  /** In the system's temporary directory ({@code java.io.tmpdir}). */
  public static GateStateDir create() {
    return create(Path.of(System.getProperty("java.io.tmpdir")));
  }

  public Path path() {
    return path;
  }

  /**
   * The directories under {@code parent} that a gate left behind: Sluice's (the prefix and the lock
   * file) and locked by no live process. Each is removed; one that cannot be is logged and left.
   *
   * @return the directories removed
   */
  static List<Path> removeStale(Path parent) {
    List<Path> removed = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*")) {
      for (Path dir : dirs) {
        if (Files.isDirectory(dir) && Files.isRegularFile(dir.resolve(LOCK)) && unlocked(dir)) {
          try {
            delete(dir);
            removed.add(dir);
          } catch (IOException | UncheckedIOException e) {
            LOG.warn("gate: could not remove the stale state directory {} ({})", dir, e.toString());
          }
        }
      }
    } catch (IOException e) {
      LOG.warn("gate: could not look for stale state directories in {} ({})", parent, e.toString());
    }
    if (!removed.isEmpty()) {
      LOG.info("gate: removed {} state directories left by gates that did not stop cleanly",
          removed.size());
    }
    return removed;
  }

  /** True when no process holds the directory's lock (which this call then takes and lets go). */
  private static boolean unlocked(Path dir) {
    try (FileChannel channel = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.WRITE)) {
      FileLock lock = channel.tryLock();
      if (lock == null) {
        return false; // another process's gate
      }
      lock.release();
      return true;
    } catch (OverlappingFileLockException e) {
      return false; // a gate of this JVM
    } catch (IOException e) {
      return false;
    }
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Lets go of the lock and removes the directory (call once Kafka Streams has closed). */
  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
      delete(path);
    } catch (IOException e) {
      LOG.warn("gate: could not remove its state directory {} ({})", path, e.toString());
    }
  }
}
