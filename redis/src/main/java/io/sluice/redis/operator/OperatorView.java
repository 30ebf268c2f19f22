package io.sluice.redis.operator;

import io.sluice.redis.operator.OperatorEntry.Key;
import io.sluice.redis.operator.OperatorEntry.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The latest value of every key of the operator topic, as one process has read it: what is in
 * force. Records are applied in the order read (one partition: the order written); a tombstone,
 * or a value that cannot be trusted, removes its key. Safe to read from any thread while the
 * log's thread applies.
 *
 * <p>Memory: one entry per pause in force (at most 1,000) and per tenant record (its JSON, a few
 * hundred bytes, at most 15,600 characters): about 50 MB at 100,000 typical records.
 */
public final class OperatorView {
  private final Map<Key, OperatorEntry> entries = new ConcurrentHashMap<>();
  /** Keys changed since a follower last drained them ({@link #drainChanged}). */
  private final ConcurrentLinkedQueue<Key> changed = new ConcurrentLinkedQueue<>();
  private volatile long applied;

  /** Applies one record: {@code entry} empty removes {@code key}. */
  public void apply(Key key, Optional<OperatorEntry> entry) {
    if (entry.isPresent()) {
      entries.put(key, entry.get());
    } else {
      entries.remove(key);
    }
    changed.add(key);
    applied++;
  }

  /** The value in force under {@code key}, if any. */
  public Optional<OperatorEntry> get(Key key) {
    return Optional.ofNullable(entries.get(key));
  }

  /** Every entry of {@code kind} in force, sorted by id. */
  public List<OperatorEntry> all(Kind kind) {
    TreeMap<String, OperatorEntry> sorted = new TreeMap<>();
    entries.forEach((k, e) -> {
      if (k.kind() == kind) {
        sorted.put(k.id(), e);
      }
    });
    return new ArrayList<>(sorted.values());
  }

  /** How many records were applied: changes when anything changed. */
  public long applied() {
    return applied;
  }

  /** The keys changed since the last drain, each once, in the order first changed. */
  public List<Key> drainChanged() {
    List<Key> out = new ArrayList<>();
    Set<Key> seen = new HashSet<>();
    for (Key k; (k = changed.poll()) != null; ) {
      if (seen.add(k)) {
        out.add(k);
      }
    }
    return out;
  }
}
