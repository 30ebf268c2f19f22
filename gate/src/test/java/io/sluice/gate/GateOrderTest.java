package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.order.OrderKeys;
import io.sluice.redis.order.OrderStore;
import io.sluice.redis.order.OrderTicket;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.testkit.FakeClock;
import io.sluice.gate.limiter.InMemoryTokenBucketStore;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Ordering keys at the gate, on TopologyTestDriver with an {@link OrderStore} in a map (the
 * script's rules: a turn per record, in order per tenant's key, none twice for one record; the
 * script itself: {@code OrderingScriptIT}): which events take a turn, in which order, and what
 * becomes of one that gets none.
 */
class GateOrderTest {
  static final String CONFIG = """
      kafka: { bootstrap: "unused:9092" }
      redis: { uri: "redis://127.0.0.1:1" }
      ladder: [1s, 5s, 30s, 2m, 10m]
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        hooks:
          url: http://localhost:8081/hooks
          rate: 50/s
          ordering: perKey
          maxOrderingKeys: 2
          dedupWindow: 10m
          quotas: { free: { capacity: 100, refill: 10/s } }
        plain:
          url: http://localhost:8082/
          rate: 50/s
          quotas: { free: { capacity: 100, refill: 10/s } }
      gate: { leaseTarget: 0ms }
      """;

  /** Turns in maps: per key, the last seq given and the seq given to each record. */
  static final class MapOrderStore implements OrderStore {
    final Map<String, Long> last = new HashMap<>();
    final Map<String, Long> given = new HashMap<>();
    final List<String> settled = new ArrayList<>();
    boolean down;

    @Override
    public synchronized Assigned assign(OrderKeys keys, String orderingKey, String source, int maxKeysInFlight) {
      if (down) {
        return new Assigned.Unanswered("RedisConnectionException");
      }
      String key = keys.key(orderingKey);
      Long seq = given.get(key + " " + source);
      if (seq != null) {
        return new Assigned.Given(new OrderTicket(7, seq));
      }
      long keysOfTenant = last.keySet().stream().filter(k -> k.startsWith(keys.key(""))).count();
      if (!last.containsKey(key) && keysOfTenant >= maxKeysInFlight) {
        return new Assigned.Full(keysOfTenant);
      }
      long next = last.merge(key, 1L, Long::sum);
      given.put(key + " " + source, next);
      return new Assigned.Given(new OrderTicket(7, next));
    }

    @Override
    public Read turn(OrderKeys keys, String orderingKey) {
      return Read.UNANSWERED;
    }

    @Override
    public synchronized void settle(OrderKeys keys, String orderingKey, OrderTicket ticket, Settled how,
        boolean deadLetterFollowers) {
      settled.add(keys.key(orderingKey) + " " + ticket.seq() + " " + how);
    }
  }

  private final FakeClock clock = new FakeClock(Instant.parse("2026-11-29T10:00:00Z"));
  private final MapOrderStore orders = new MapOrderStore();
  private GateTestDriver gate;

  private void start() {
    SluiceConfig config = ConfigLoader.parse(CONFIG, Map.of());
    GateWiring wiring = new GateWiring(config, new InMemoryTokenBucketStore(clock::micros),
        new RedisCircuit(1000, 1000, s -> {}), () -> 1.0, clock, clock::nanos, new GateListener() {},
        () -> config, TenantLookup.NONE, clock, new InMemorySeenIds(clock), orders);
    gate = new GateTestDriver(wiring, "gate-order-test");
  }

  @AfterEach
  void close() {
    if (gate != null) {
      gate.close();
    }
  }


  /** Each ready record's id and its ticket ({@code -} when it has none), in the order admitted. */
  private Map<String, String> readyTickets() {
    Map<String, String> tickets = new LinkedHashMap<>();
    for (TestRecord<byte[], byte[]> r : gate.ready.readRecordsToList()) {
      try {
        tickets.put(Json.mapper().readTree(r.value()).get("id").textValue(),
            HeaderValues.last(r.headers(), HeaderNames.ORDER).orElse("-"));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return tickets;
  }

  @Test
  void shouldGiveEachOrderedEventTheNextTurnOfItsTenantsKeyInInboundOrder() {
    start();
    gate.sendInbound("acme", "a1", "hooks", ",\"orderingKey\":\"k\"");
    gate.sendInbound("globex", "g1", "hooks", ",\"orderingKey\":\"k\"");
    gate.sendInbound("acme", "a2", "hooks", ",\"orderingKey\":\"k\"");
    gate.sendInbound("acme", "u1", "hooks", "");
    gate.sendInbound("acme", "p1", "plain", ",\"orderingKey\":\"k\"");
    gate.sendInbound("acme", "a3", "hooks", ",\"orderingKey\":\"k\"");

    assertEquals(Map.of("a1", "v1 7 1", "g1", "v1 7 1", "a2", "v1 7 2", "u1", "-", "p1", "-", "a3", "v1 7 3"),
        readyTickets(), "per tenant's key, in order; none without a key or toward a provider that does not order");
  }

  @Test
  void shouldGiveNoTurnToARepeatAnInvalidEventOrOneRefusedItsTime() {
    start();
    gate.sendInbound("acme", "a1", "hooks", ",\"orderingKey\":\"k\"");
    gate.sendInbound("acme", "a1", "hooks", ",\"orderingKey\":\"k\"");
    gate.sendInbound("acme", "bad", "hooks", ",\"orderingKey\":\"k\",\"cost\":0");
    gate.sendInbound("acme", "far", "hooks", ",\"orderingKey\":\"k\",\"delay\":\"1d\"");
    gate.sendInbound("acme", "a2", "hooks", ",\"orderingKey\":\"k\"");

    assertEquals(Map.of("a1", "v1 7 1", "a2", "v1 7 2"), readyTickets());
    assertEquals(2, gate.dlq.readRecordsToList().size(), "the invalid one and the one too far ahead");
    assertEquals(1, gate.outcomes.readRecordsToList().size(), "the repeat");
  }

  @Test
  void shouldDeadLetterAnEventItsKeyCannotOrderRatherThanCallItUnordered() {
    start();
    gate.sendInbound("acme", "a1", "hooks", ",\"orderingKey\":\"k1\"");
    gate.sendInbound("acme", "a2", "hooks", ",\"orderingKey\":\"k2\"");
    gate.sendInbound("acme", "a3", "hooks", ",\"orderingKey\":\"k3\"");
    gate.sendInbound("acme", "a4", "hooks", ",\"orderingKey\":\"k1\"");
    orders.down = true;
    gate.sendInbound("acme", "a5", "hooks", ",\"orderingKey\":\"k1\"");

    assertEquals(List.of("a1", "a2", "a4"), List.copyOf(readyTickets().keySet()));
    List<TestRecord<byte[], byte[]>> dead = gate.dlq.readRecordsToList();
    assertEquals(List.of("not_ordered", "redis_unavailable"),
        dead.stream().map(r -> HeaderValues.last(r.headers(), HeaderNames.REASON).orElse(null)).toList());
    assertTrue(HeaderValues.last(dead.get(0).headers(), HeaderNames.DETAIL).orElseThrow()
        .contains("2 ordering keys in flight"), "the bound, said");
    assertNull(HeaderValues.last(dead.get(0).headers(), HeaderNames.ORDER).orElse(null), "no turn taken");
  }
}
