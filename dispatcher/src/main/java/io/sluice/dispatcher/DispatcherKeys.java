package io.sluice.dispatcher;

/**
 * Every Redis key the dispatcher owns, built here and nowhere else (as {@code Topics} names the
 * Kafka topics): the store that reads or writes a key asks this class for its name, so a key's
 * format, its version and its hash tag are decided in one place and listed in one place
 * ({@code docs/architecture.md}, "Redis keys"). {@code ArchitectureTest} fails on a key prefix
 * written anywhere else.
 *
 * <p>Each key is versioned ({@code sluice:v1:}), so a change of what it stores can roll out beside
 * the old keys, and hash-tagged, so that in a Redis Cluster everything one script touches lives in
 * one slot: a provider's leak, its limits, its busy tenants and its total line share the tag
 * {@code {provider}}. Provider names are {@code [A-Za-z0-9._-]}: no braces. A name that already
 * carries a tag (an endpoint lane under a total, {@code {hooks}/acme}) keeps it.
 *
 * <p>Not here yet: the delivered log's key, {@code sluice:v2:{<group>:<partition>}:delivered:...}
 * ({@code dispatch.offsets.RedisDeliveredLog}), and the instances' waits, {@code sluice:v2:{waits}}
 * ({@code dispatch.WaitsStore}), built there while that package is being changed (allowed, with
 * that reason, by {@code ArchitectureTest}).
 */
public final class DispatcherKeys {
  /** The hash every operator pause is a field of ({@code PauseStore}). */
  public static final String PAUSES = "sluice:v1:pauses";

  private DispatcherKeys() {}

  /** {@code sluice:v1:{name}:leak}: a lane's leak, the slots its instances claim. */
  public static String leak(String name) {
    return "sluice:v1:" + tagged(name) + ":leak";
  }

  /** {@code sluice:v1:{provider}:total}: a per-tenant provider's total line, in its endpoints' slot. */
  public static String total(String provider) {
    return "sluice:v1:{" + provider + "}:total";
  }

  /** {@code sluice:v1:{name}:limit:<id>}: one limit beyond the rate, named by its id, not its amount. */
  public static String limit(String name, String limitId) {
    return "sluice:v1:" + tagged(name) + ":limit:" + limitId;
  }

  /** {@code sluice:v1:{name}:busy}: each lane's busy tenants per tier. */
  public static String busy(String name) {
    return "sluice:v1:" + tagged(name) + ":busy";
  }

  /** {@code sluice:v1:{provider}:learned}: the limits learned from a provider's answers. */
  public static String learned(String provider) {
    return "sluice:v1:{" + provider + "}:learned";
  }

  /** A name's part of its keys: {@code {name}}, or the name as it is when it carries its own tag. */
  public static String tagged(String name) {
    return name.startsWith("{") ? name : "{" + name + "}";
  }
}
