package io.sluice.config;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The configuration in force, which a reload replaces as a whole or not at all.
 *
 * <p>Readers call {@link #get()} per decision and use that one snapshot for the whole decision, so
 * no decision ever sees half of an old file and half of a new one. A reload is validated in full
 * (the same {@link ConfigLoader} as at start-up, so a reloaded file is held to exactly the rules of
 * a fresh start), checked against {@link ReloadScope} and only then swapped in. A bad file, or one
 * that changes a setting needing a restart, leaves the running configuration as it was, and the
 * outcome says why, naming the field.
 *
 * <p>Thread-safety: any thread may read; reloads are serialised by this object's monitor, and
 * listeners run on the reloading thread after the swap, in registration order.
 */
public final class LiveConfig {
  /** What a reload did. */
  public sealed interface Outcome {
    /** The new configuration is in force; {@code changed} names what differs, by dotted path. */
    record Applied(List<String> changed) implements Outcome {}

    /** The file says what is already in force. */
    record Unchanged() implements Outcome {}

    /** The running configuration stays; {@code reason} says why, naming the field. */
    record Rejected(String reason) implements Outcome {}
  }

  private final AtomicReference<SluiceConfig> current;
  private final List<Consumer<SluiceConfig>> listeners = new CopyOnWriteArrayList<>();

  public LiveConfig(SluiceConfig initial) {
    this.current = new AtomicReference<>(Objects.requireNonNull(initial, "initial"));
  }

  /** The configuration in force now. */
  public SluiceConfig get() {
    return current.get();
  }

  /**
   * Calls {@code listener} with every configuration swapped in from now on.
   *
   * @return removes the listener (a role restarted by its supervisor drops its old instance's)
   */
  public Runnable onChange(Consumer<SluiceConfig> listener) {
    listeners.add(listener);
    return () -> listeners.remove(listener);
  }

  /**
   * Loads a candidate with {@code loader} (which throws {@link ConfigException} for a bad file)
   * and swaps it in if it is valid and changes only what may change at run time.
   */
  public synchronized Outcome reload(Supplier<SluiceConfig> loader) {
    SluiceConfig next;
    try {
      next = loader.get();
    } catch (ConfigException e) {
      return new Outcome.Rejected(e.getMessage());
    }
    SluiceConfig running = current.get();
    List<String> restart = ReloadScope.needingRestart(running, next);
    if (!restart.isEmpty()) {
      return new Outcome.Rejected("these settings need a restart, so nothing was reloaded: "
          + String.join(", ", restart));
    }
    List<String> changed = ReloadScope.reloaded(running, next);
    if (changed.isEmpty()) {
      return new Outcome.Unchanged();
    }
    current.set(next);
    RuntimeException failed = null;
    for (Consumer<SluiceConfig> listener : listeners) {
      try {
        listener.accept(next);
      } catch (RuntimeException e) { // every listener hears of the swap, whatever one does
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
    return new Outcome.Applied(changed);
  }
}
