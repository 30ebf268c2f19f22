package io.sluice.app.hanging;

import java.util.UUID;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The transactional ids Sluice's own producers use, by their exact shapes, so that the sweeper
 * ends only Sluice's transactions (a prefix match is too broad: with an empty topic prefix every
 * id starting {@code relay-} would be Sluice's):
 * <ul>
 *   <li>the gate's, as Kafka Streams names them under {@code exactly_once_v2}:
 *       {@code <applicationId>-<process UUID>-<thread index>};</li>
 *   <li>the relays': {@code <topicPrefix>relay-<UUID>} ({@code RelayService});</li>
 *   <li>the sweepers' own, which write hanging transactions' records again:
 *       {@code <topicPrefix>sweeper-<UUID>} ({@link #sweeper()}).</li>
 * </ul>
 */
public final class SluiceTransactionalIds implements Predicate<String> {
  private static final String UUID_SHAPE =
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  static final String SWEEPER = "sweeper";

  private final String topicPrefix;
  private final Pattern shapes;

  /**
   * @param gateApplicationId the gate's Kafka Streams application id
   * @param topicPrefix       Sluice's topic prefix (may be empty)
   * @param relayName         what the relays' ids carry after the prefix ({@code relay})
   */
  public SluiceTransactionalIds(String gateApplicationId, String topicPrefix, String relayName) {
    this.topicPrefix = topicPrefix;
    this.shapes = Pattern.compile(
        Pattern.quote(gateApplicationId + "-") + UUID_SHAPE + "-[0-9]{1,9}"
            + "|" + Pattern.quote(topicPrefix + relayName + "-") + UUID_SHAPE
            + "|" + Pattern.quote(topicPrefix + SWEEPER + "-") + UUID_SHAPE);
  }

  @Override
  public boolean test(String transactionalId) {
    return transactionalId != null && shapes.matcher(transactionalId).matches();
  }

  /** A fresh transactional id for a sweeper's producer, one of Sluice's by {@link #test}. */
  public String sweeper() {
    return topicPrefix + SWEEPER + "-" + UUID.randomUUID();
  }
}
