package io.sluice.app.hanging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class SluiceTransactionalIdsTest {
  private static final String UUID_1 = "32d2eaa9-6b1c-4f0e-9a53-0c1d2e3f4a5b";

  @Test
  void withAnEmptyTopicPrefixOnlyTheRelaysExactShapeIsOurs() {
    SluiceTransactionalIds ours = new SluiceTransactionalIds("sluice-gate", "", "relay");

    assertTrue(ours.test("relay-" + UUID_1));
    assertFalse(ours.test("relay-billing"), "another application's id that starts relay-");
    assertFalse(ours.test("relay-" + UUID_1 + "-1"));
    assertFalse(ours.test("relay-" + UUID_1.toUpperCase()));
    assertFalse(ours.test("relay-"));
  }

  @Test
  void theGatesIdsAreKafkaStreamsExactlyOnceV2Ids() {
    SluiceTransactionalIds ours = new SluiceTransactionalIds("sluice-gate", "sluice.", "relay");

    assertTrue(ours.test("sluice-gate-" + UUID_1 + "-1"));
    assertTrue(ours.test("sluice-gate-" + UUID_1 + "-12"));
    assertFalse(ours.test("sluice-gate-" + UUID_1), "no thread index");
    assertFalse(ours.test("sluice-gate-reports-7"));
    assertFalse(ours.test("sluice-gate-" + UUID_1 + "-1-x"));
    assertFalse(ours.test(null));
  }

  @Test
  void theRelaysAndTheSweepersCarryTheTopicPrefix() {
    SluiceTransactionalIds ours = new SluiceTransactionalIds("sluice-gate", "sluice.", "relay");

    assertTrue(ours.test("sluice.relay-" + UUID.randomUUID()));
    assertFalse(ours.test("relay-" + UUID.randomUUID()), "another deployment's prefix");
    assertTrue(ours.test(ours.sweeper()));
    assertFalse(ours.test("other.sweeper-" + UUID.randomUUID()));
  }

  @Test
  void aPrefixWithRegexCharactersIsTakenLiterally() {
    SluiceTransactionalIds ours = new SluiceTransactionalIds("sluice-gate", "a.b", "relay");

    assertFalse(ours.test("aXbrelay-" + UUID_1));
    assertTrue(ours.test("a.brelay-" + UUID_1));
  }
}
