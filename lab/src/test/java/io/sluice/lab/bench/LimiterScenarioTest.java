package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LimiterScenarioTest {
  @Test
  void eachOfTheKeysIsDecidedByExactlyOneThreadAsEachTenantByOneStreamTask() {
    int threads = 8;
    Map<Integer, Integer> threadOfKey = new HashMap<>();
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < 2 * LimiterScenario.MANY_KEYS; i++) {
        int key = LimiterScenario.keyOf(t, threads, i);
        Integer other = threadOfKey.putIfAbsent(key, t);
        assertEquals(t, other == null ? t : other, "key " + key + " decided by two threads");
      }
    }
    assertEquals(LimiterScenario.MANY_KEYS, threadOfKey.size(), "every key decided");
  }

  @Test
  void aThreadGoesRoundItsShareBeforeDecidingAKeyAgain() {
    // 10,000 keys over 8 threads: 1,250 each, so thread 3's decisions 0 and 1,250 are one key.
    Set<Integer> round = new HashSet<>();
    for (int i = 0; i < 1_250; i++) {
      round.add(LimiterScenario.keyOf(3, 8, i));
    }
    assertEquals(1_250, round.size());
    assertEquals(LimiterScenario.keyOf(3, 8, 0), LimiterScenario.keyOf(3, 8, 1_250));
  }

  @Test
  void oneThreadGoesRoundAllTheKeys() {
    assertEquals(0, LimiterScenario.keyOf(0, 1, 0));
    assertEquals(9_999, LimiterScenario.keyOf(0, 1, 9_999));
    assertEquals(0, LimiterScenario.keyOf(0, 1, 10_000));
  }
}
