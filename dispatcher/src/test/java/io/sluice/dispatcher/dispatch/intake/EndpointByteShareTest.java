package io.sluice.dispatcher.dispatch.intake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.event.WorkEvent;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * Issue 39, 4: one tenant's endpoint cannot take its provider's whole share of the bytes held,
 * so the other tenants' endpoints of that provider keep reading while it has a backlog of large
 * events.
 */
class EndpointByteShareTest {
  /** An entry's cost: its 10,000-byte value, its key and the overhead. */
  private static final long ENTRY = ByteBudget.RECORD_OVERHEAD + 5 + 10_000;
  /** 16 entries a provider (two providers), 2 an endpoint (one in eight). */
  private static final long BUDGET = 2 * 16 * ENTRY;

  private static DispatchEntry entry(String provider, String tenant) {
    WorkEvent event = new WorkEvent("e1", tenant, provider, 1, null, null, null, null);
    return new DispatchEntry(new TopicPartition("t.ready", 0), 42, 1, tenant.getBytes(UTF_8),
        new byte[10_000], new RecordHeaders(), event, "std", 0, null);
  }

  @Test
  void shouldOverflowAnEndpointPastItsShareAndLeaveRoomForTheOtherEndpoints() {
    ReadBudget budget = new ReadBudget(Set.of("hooks", "api"), Set.of("hooks"), 1_000, BUDGET);
    for (int i = 0; i < 2; i++) {
      assertTrue(budget.fits(entry("hooks", "tenA")));
      budget.hold(entry("hooks", "tenA"));
    }
    assertFalse(budget.fits(entry("hooks", "tenA")), "tenA's endpoint holds its eighth: overflow");
    assertTrue(budget.fits(entry("hooks", "tenB")), "another tenant's endpoint still reads");
    budget.release(entry("hooks", "tenA"));
    assertTrue(budget.fits(entry("hooks", "tenA")), "room again once one settles");
  }

  @Test
  void shouldLeaveAProviderWithOneUrlToItsWholeShare() {
    ReadBudget budget = new ReadBudget(Set.of("hooks", "api"), Set.of("hooks"), 1_000, BUDGET);
    for (int i = 0; i < 16; i++) {
      assertTrue(budget.fits(entry("api", "tenA")), "entry " + i + " within api's share");
      budget.hold(entry("api", "tenA"));
    }
    assertFalse(budget.fits(entry("api", "tenA")), "api's share is full");
  }

  @Test
  void shouldLetAnEmptyEndpointTakeOneRecordLargerThanItsShare() {
    ReadBudget budget = new ReadBudget(Set.of("hooks"), Set.of("hooks"), 1_000, 4 * ENTRY);
    assertTrue(budget.fits(entry("hooks", "tenA")), "half an entry's share: one still moves");
  }
}
