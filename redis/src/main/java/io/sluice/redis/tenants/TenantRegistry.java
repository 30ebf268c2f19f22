package io.sluice.redis.tenants;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import io.sluice.redis.operator.OperatorEntry;
import io.sluice.redis.operator.OperatorJournal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The tenant registry in Redis, written by {@code sluice tenants set|delete} and the admin API,
 * read by every gate ({@link TenantWatcher}), all through {@code lua/tenants.lua}. Keys, all under
 * the hash tag {@code {tenants}} (one slot, so that every script is atomic in a cluster too):
 * <ul>
 *   <li>{@value #KEY}: a hash, tenant id → {@code "<atMillis> <json>"} ({@link TenantCodec}), at
 *       most {@value #MAX_TENANTS} tenants (a new one beyond is refused; replacing one is always
 *       allowed);</li>
 *   <li>{@value #VERSION}: a counter, bumped by every change;</li>
 *   <li>{@value #CHANGES}: a stream, one entry per change naming the tenant, trimmed to about
 *       {@value #MAX_CHANGES} entries: what the gates poll to forget what changed;</li>
 *   <li>{@code sluice:v1:{tenants}:audit:<id>}: the tenant's audit trail, a list of its last
 *       {@value #MAX_AUDIT} changes (who, when, before, after), removed
 *       {@value #AUDIT_DAYS} days after its last change;</li>
 *   <li>{@value #MARKER}: the marker of a cache seeded whole from the operator topic
 *       ({@link io.sluice.redis.operator.CacheRepair}).</li>
 * </ul>
 * Every change is written first to the operator topic ({@link OperatorJournal}, acknowledged),
 * the durable home, then here, its cache. A record lives until deleted; it survives restarts, and
 * every loss of Redis's data: a role's {@code CacheKeeper} finds the marker gone and sets every
 * record again ({@link #restore}), bumping the counter, so the gates forget what they kept and
 * look the tenants up again. (The audit trail is Redis's alone: a loss takes it.)
 */
public final class TenantRegistry {
  public static final String KEY = "sluice:v1:{tenants}";
  public static final String VERSION = KEY + ":version";
  public static final String CHANGES = KEY + ":changes";
  /** Present while the cache holds the whole operator topic's records (same slot as the rest). */
  public static final String MARKER = KEY + ":marker";
  /** Most tenants the registry holds. */
  public static final int MAX_TENANTS = 1_000_000;
  /** Changes kept in the stream (about: Redis trims whole nodes). */
  public static final int MAX_CHANGES = 10_000;
  /** Changes kept per tenant in its audit trail. */
  public static final int MAX_AUDIT = 100;
  /** Days an audit trail is kept after its tenant's last change. */
  public static final int AUDIT_DAYS = 90;
  /** Most tenants one {@link #list} answers. */
  public static final int MAX_LIST = 1_000;
  private static final String AUDIT_TTL = Long.toString(Duration.ofDays(AUDIT_DAYS).toMillis());

  /** A new tenant was refused: the registry holds {@value #MAX_TENANTS} already. */
  public static final class Full extends RuntimeException {
    public Full(long count) {
      super("the registry holds " + count + " tenants already, the most Sluice keeps ("
          + MAX_TENANTS + "); delete some first");
    }
  }

  /** What a gate polls: the version now, the registry's size, and what changed since. */
  public record Changes(long version, long tenants, boolean gap, List<String> ids) {}

  /** A record read with the registry's version at the time (see {@link TenantCache#store}). */
  public record Read(long version, Optional<StoredTenant> tenant) {}

  /** One page of {@link #list}: the records, sorted by id, and whether there were more. */
  public record Page(List<StoredTenant> tenants, boolean truncated) {}

  private final RedisScriptingAsyncCommands<String, String> commands;
  private final OperatorJournal journal;
  private final LuaScript script = LuaScript.load("/lua/tenants.lua");

  /** The registry in Redis alone: for readers (the gates', the dispatchers' watchers). */
  public TenantRegistry(RedisScriptingAsyncCommands<String, String> commands) {
    this(commands, OperatorJournal.NONE);
  }

  /** The registry, each change written to {@code journal} first and here once acknowledged. */
  public TenantRegistry(RedisScriptingAsyncCommands<String, String> commands, OperatorJournal journal) {
    this.commands = commands;
    this.journal = journal;
  }

  static String auditKey(String id) {
    return KEY + ":audit:" + id;
  }

  /**
   * Writes {@code record} for {@code id} (checked first: {@link TenantInput}); fails with
   * {@link Full}. A record too large to read back is refused here too
   * ({@link TenantInput#checkSize}, thrown at once).
   */
  public CompletionStage<StoredTenant> put(String id, TenantRecord record, String by) {
    TenantInput.checkSize(record);
    String stored = TenantCodec.stored(record, by);
    OperatorEntry entry = OperatorEntry.of(OperatorEntry.Kind.TENANT, id, System.currentTimeMillis(),
        stored);
    return journal.write(entry.key(), Optional.of(entry))
        .thenCompose(written -> run(new String[] {KEY, VERSION, CHANGES, auditKey(id)}, "put", id,
            stored, TenantCodec.quoted(by), Integer.toString(MAX_TENANTS),
            Integer.toString(MAX_AUDIT), AUDIT_TTL, Integer.toString(MAX_CHANGES)))
        .thenCompose(reply -> (Long) reply.get(0) == 0
            // Refused by the bound: take it back from the topic too, so no role seeds it later.
            ? journal.write(entry.key(), Optional.empty()).thenApply(undone -> reply)
            : CompletableFuture.completedFuture(reply))
        .thenApply(reply -> {
          if ((Long) reply.get(0) == 0) {
            throw new Full((Long) reply.get(1));
          }
          return new StoredTenant(id, record, by, Instant.ofEpochMilli((Long) reply.get(1)));
        });
  }

  /** Removes {@code id}'s record (the file and the default tier decide again); whether there was one. */
  public CompletionStage<Boolean> delete(String id, String by) {
    return journal.write(new OperatorEntry.Key(OperatorEntry.Kind.TENANT, id), Optional.empty())
        .thenCompose(written -> run(new String[] {KEY, VERSION, CHANGES, auditKey(id)}, "delete", id,
            TenantCodec.quoted(by), Integer.toString(MAX_AUDIT), AUDIT_TTL,
            Integer.toString(MAX_CHANGES)))
        .thenApply(reply -> (Long) reply.get(0) == 1);
  }

  /**
   * Sets {@code id}'s cached value as the operator topic has it ({@link OperatorEntry#cached}, or
   * empty: no record), with no audit entry; bumps the version only when it changed. Completes
   * with whether it did.
   */
  public CompletionStage<Boolean> restore(String id, Optional<String> cached) {
    return run(new String[] {KEY, VERSION, CHANGES, MARKER}, "restore", id, cached.orElse(""),
        Integer.toString(MAX_CHANGES)).thenApply(reply -> (Long) reply.get(0) == 1);
  }

  /** The cache's marker ({@link #MARKER}), empty when absent. */
  public CompletionStage<Optional<String>> marker() {
    return run(new String[] {KEY, VERSION, CHANGES, MARKER}, "marker")
        .thenApply(reply -> reply.isEmpty() ? Optional.empty() : Optional.of(String.valueOf(reply.get(0))));
  }

  /** Sets the marker to {@code value} if it is {@code expected} now (empty: whatever it is). */
  public CompletionStage<Boolean> mark(String value, Optional<String> expected) {
    return run(new String[] {KEY, VERSION, CHANGES, MARKER}, "mark", value, expected.orElse(""))
        .thenApply(reply -> (Long) reply.get(0) == 1);
  }

  /** {@code id}'s record, if it has a readable one, with the registry's version. */
  public CompletionStage<Read> get(String id) {
    return run(new String[] {KEY, VERSION, CHANGES}, "get", id).thenApply(reply -> new Read(
        (Long) reply.get(0),
        reply.size() > 1 ? TenantCodec.decode(id, (String) reply.get(1)) : Optional.empty()));
  }

  /** The changes since {@code version} (-1: none seen yet), at most {@code max} ids. */
  public CompletionStage<Changes> changes(long version, int max) {
    return run(new String[] {KEY, VERSION, CHANGES}, "changes", Long.toString(version),
        Integer.toString(max)).thenApply(reply -> {
          List<String> ids = new ArrayList<>();
          for (int i = 3; i < reply.size(); i++) {
            ids.add(String.valueOf(reply.get(i)));
          }
          return new Changes((Long) reply.get(0), (Long) reply.get(1), (Long) reply.get(2) == 1, ids);
        });
  }

  /** {@code id}'s last changes, newest first (at most {@value #MAX_AUDIT}). */
  public CompletionStage<List<TenantChange>> audit(String id) {
    return run(new String[] {KEY, VERSION, CHANGES, auditKey(id)}, "audit",
        Integer.toString(MAX_AUDIT)).thenApply(reply -> {
          List<TenantChange> out = new ArrayList<>();
          for (Object value : reply) {
            TenantCodec.change(String.valueOf(value)).ifPresent(out::add);
          }
          return out;
        });
  }

  /**
   * Up to {@code limit} (at most {@value #MAX_LIST}) records whose ids start with {@code prefix}
   * ({@link TenantInput#checkPrefix}: no glob character gets here), sorted by id: the first found,
   * not the first in order, when there are more ({@code truncated}).
   */
  public CompletionStage<Page> list(String prefix, int limit) {
    int max = Math.max(1, Math.min(limit, MAX_LIST));
    List<StoredTenant> found = new ArrayList<>();
    return scan("0", prefix + "*", max, found).thenApply(more -> {
      found.sort(Comparator.comparing(StoredTenant::id));
      boolean truncated = more || found.size() > max;
      return new Page(List.copyOf(found.subList(0, Math.min(max, found.size()))), truncated);
    });
  }

  /** Scans on from {@code cursor} until more than {@code max} are found or the scan ends. */
  private CompletionStage<Boolean> scan(String cursor, String match, int max, List<StoredTenant> found) {
    return run(new String[] {KEY, VERSION, CHANGES}, "list", cursor, match, "500").thenCompose(reply -> {
      String next = String.valueOf(reply.get(0));
      @SuppressWarnings("unchecked")
      List<Object> pairs = (List<Object>) reply.get(1);
      for (int i = 0; i + 1 < pairs.size(); i += 2) {
        String id = String.valueOf(pairs.get(i));
        TenantCodec.decode(id, String.valueOf(pairs.get(i + 1))).ifPresent(found::add);
      }
      if (found.size() > max) {
        return CompletableFuture.completedFuture(!next.equals("0"));
      }
      return next.equals("0") ? CompletableFuture.completedFuture(false) : scan(next, match, max, found);
    });
  }

  private CompletableFuture<List<Object>> run(String[] keys, String... args) {
    return script.run(commands, keys, args, () -> {});
  }
}
