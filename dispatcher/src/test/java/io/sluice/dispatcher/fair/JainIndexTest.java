package io.sluice.dispatcher.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class JainIndexTest {
  @Test
  void shouldBeOneWhenEverySharesIsEqual() {
    assertEquals(1.0, JainIndex.of(7, 7, 7, 7), 1e-12);
    assertEquals(1.0, JainIndex.of(List.of(0.25, 0.25, 0.25, 0.25)), 1e-12);
  }

  @Test
  void shouldBeOneOverNWhenOnePartyGetsEverything() {
    assertEquals(0.25, JainIndex.of(0, 0, 12, 0), 1e-12);
  }

  @Test
  void shouldBeKOverNWhenKPartiesShareEquallyAndTheRestGetNothing() {
    assertEquals(0.6, JainIndex.of(5, 5, 5, 0, 0), 1e-12);
  }

  @Test
  void shouldMatchTheWorkedExample() {
    // (30 + 30 + 30 + 10)^2 / (4 * (900 + 900 + 900 + 100)) = 10000 / 11200
    assertEquals(10_000.0 / 11_200, JainIndex.of(30, 30, 30, 10), 1e-12);
  }

  @Test
  void shouldNotDependOnTheUnit() {
    assertEquals(JainIndex.of(1, 2, 3), JainIndex.of(1000, 2000, 3000), 1e-12);
  }

  @Test
  void shouldRefuseNoSharesAndNegativeShares() {
    assertThrows(IllegalArgumentException.class, () -> JainIndex.of());
    assertThrows(IllegalArgumentException.class, () -> JainIndex.of(1, -1));
    assertThrows(IllegalArgumentException.class, () -> JainIndex.of(1, Double.NaN));
  }
}
