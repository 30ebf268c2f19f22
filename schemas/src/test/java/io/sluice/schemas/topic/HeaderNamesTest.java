package io.sluice.schemas.topic;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

class HeaderNamesTest {
  @Test
  void shouldCountEveryHeaderSluiceWritesAsSluicesSoTheGateStripsItsForgeries() throws Exception {
    for (Field f : HeaderNames.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class && !f.getName().equals("PREFIX")) {
        assertTrue(HeaderNames.isSluice((String) f.get(null)), f.getName());
      }
    }
  }

  @Test
  void shouldMatchThePrefixInAnyCaseAndNothingElse() {
    assertTrue(HeaderNames.isSluice("Sluice-Attempt"));
    assertTrue(HeaderNames.isSluice("SLUICE-TICKET"));
    assertTrue(HeaderNames.isSluice("sluice-anything-new"));
    assertFalse(HeaderNames.isSluice("x-sluice-attempt"));
    assertFalse(HeaderNames.isSluice("sluice"));
    assertFalse(HeaderNames.isSluice("sluiceattempt"));
    assertFalse(HeaderNames.isSluice(""));
    assertFalse(HeaderNames.isSluice(null));
  }
}
