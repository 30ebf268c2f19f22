package io.sluice.config;

import java.util.Map;

/**
 * A tenant's per-attribute rule: a budget for the events that match, such as an expensive action
 * per hour. An event matches when every condition given matches (at least one is given):
 * <ul>
 *   <li>{@code provider}: the event's provider is this one;
 *   <li>{@code path}: the event's {@code path}, without its query, is this path or lies under it
 *       ({@code refunds} matches {@code refunds}, {@code refunds/42} and {@code refunds?x=1}, not
 *       {@code refundsX});
 *   <li>{@code attribute} and {@code equals}: the event's attribute of that name has exactly that
 *       value (attributes are what the producer sets beside the payload, see work-event.schema.json).
 * </ul>
 *
 * @param provider  null: any provider
 * @param path      null: any path
 * @param attribute null: no attribute condition (then {@code equals} is null too)
 * @param quota     the rule's bucket, shared by every matching event of the tenant
 */
public record QuotaRule(String provider, String path, String attribute, String equals, Quota quota) {
  /** Whether an event toward {@code eventProvider} with this path and attributes matches. */
  public boolean matches(String eventProvider, String eventPath, Map<String, String> attributes) {
    if (provider != null && !provider.equals(eventProvider)) {
      return false;
    }
    if (path != null && !underPath(eventPath)) {
      return false;
    }
    return attribute == null || equals.equals(attributes.get(attribute));
  }

  private boolean underPath(String eventPath) {
    if (eventPath == null) {
      return false;
    }
    int query = eventPath.indexOf('?');
    String bare = query < 0 ? eventPath : eventPath.substring(0, query);
    String wanted = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    return bare.equals(wanted) || bare.startsWith(wanted + "/");
  }
}
