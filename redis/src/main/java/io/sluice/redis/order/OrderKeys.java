package io.sluice.redis.order;

/**
 * The Redis keys of ordering ({@code lua/ordering.lua}), built here and nowhere else. Both keys of
 * one tenant toward one provider share the hash tag {@code {o:<provider>:<tenant>}}, so the script
 * touches one cluster slot, and a tenant's keys are never another tenant's.
 *
 * @param provider the provider's name
 * @param tenant   the tenant's id
 */
public record OrderKeys(String provider, String tenant) {
  /** {@code sluice:v1:{o:<provider>:<tenant>}:key:<orderingKey>}: one key's turns. */
  public String key(String orderingKey) {
    return prefix() + ":key:" + orderingKey;
  }

  /** {@code sluice:v1:{o:<provider>:<tenant>}:keys}: the tenant's keys with events in flight. */
  public String inFlight() {
    return prefix() + ":keys";
  }

  private String prefix() {
    return "sluice:v1:{o:" + provider + ":" + tenant + "}";
  }
}
