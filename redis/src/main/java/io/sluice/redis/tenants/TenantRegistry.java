package io.sluice.redis.tenants;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.redis.LuaScript;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
 *       {@value #AUDIT_DAYS} days after its last change.</li>
 * </ul>
 * A record lives until deleted; it survives restarts, and Redis's as far as Redis persists its
 * data. Redis wiped: every tenant is decided by the file again, and the gates forget what they
 * cached within a poll (the counter went back).
 */
public final class TenantRegistry {
  public static final String KEY = "sluice:v1:{tenants}";
  public static final String VERSION = KEY + ":version";
  public static final String CHANGES = KEY + ":changes";
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
  private final LuaScript script = LuaScript.load("/lua/tenants.lua");

  public TenantRegistry(RedisScriptingAsyncCommands<String, String> commands) {
    this.commands = commands;
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
    return run(new String[] {KEY, VERSION, CHANGES, auditKey(id)}, "put", id,
        TenantCodec.stored(record, by), TenantCodec.quoted(by), Integer.toString(MAX_TENANTS),
        Integer.toString(MAX_AUDIT), AUDIT_TTL, Integer.toString(MAX_CHANGES))
        .thenApply(reply -> {
          if ((Long) reply.get(0) == 0) {
            throw new Full((Long) reply.get(1));
          }
          return new StoredTenant(id, record, by, Instant.ofEpochMilli((Long) reply.get(1)));
        });
  }

  /** Removes {@code id}'s record (the file and the default tier decide again); whether there was one. */
  public CompletionStage<Boolean> delete(String id, String by) {
    return run(new String[] {KEY, VERSION, CHANGES, auditKey(id)}, "delete", id,
        TenantCodec.quoted(by), Integer.toString(MAX_AUDIT), AUDIT_TTL, Integer.toString(MAX_CHANGES))
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
      found.sort(java.util.Comparator.comparing(StoredTenant::id));
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
