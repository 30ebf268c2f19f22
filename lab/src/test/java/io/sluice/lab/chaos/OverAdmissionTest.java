package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OverAdmissionTest {
  private static List<OverAdmission.Admission> at(long... millis) {
    List<OverAdmission.Admission> list = new ArrayList<>();
    for (long m : millis) {
      list.add(new OverAdmission.Admission(m, 1));
    }
    return list;
  }

  @Test
  void aFullBucketThenTheRefillRateIsWithinTheBound() {
    // capacity 3, 2/s: three at once, then one every 500 ms.
    OverAdmission.Worst w = OverAdmission.worst(at(0, 0, 0, 500, 1000, 1500, 2000), 3, 2,
        List.of());
    assertFalse(w.overAdmitted(), () -> "worst " + w);
  }

  @Test
  void oneMoreThanCapacityAtOnceIsOverAdmission() {
    OverAdmission.Worst w = OverAdmission.worst(at(100, 100, 100, 100), 3, 2, List.of());
    assertTrue(w.overAdmitted());
    assertEquals(4, w.count());
    assertEquals(1 - 2 * 0.001, w.excess(), 1e-9);
  }

  @Test
  void aRateAboveTheRefillOverAWindowIsOverAdmission() {
    // capacity 3, 2/s; 4/s for 3 s: 12 in 2750 ms against 3 + 5.5.
    long[] times = new long[12];
    for (int i = 0; i < times.length; i++) {
      times[i] = i * 250L;
    }
    OverAdmission.Worst w = OverAdmission.worst(at(times), 3, 2, List.of());
    assertTrue(w.overAdmitted());
    assertEquals(0, w.fromMillis());
    assertEquals(2750, w.toMillis());
  }

  @Test
  void anExcuseGivesItsExtraCapacityOnlyToWindowsOverlappingIt() {
    List<OverAdmission.Admission> burst = at(5000, 5000, 5000, 5000, 5000, 5000);
    assertFalse(OverAdmission.worst(burst, 3, 2,
        List.of(new OverAdmission.Excuse(4000, 6000, 3))).overAdmitted());
    assertTrue(OverAdmission.worst(burst, 3, 2,
        List.of(new OverAdmission.Excuse(0, 1000, 3))).overAdmitted());
    assertFalse(OverAdmission.worst(burst, 3, 2,
        List.of(new OverAdmission.Excuse(4000, 6000, Double.POSITIVE_INFINITY))).overAdmitted());
  }
}
