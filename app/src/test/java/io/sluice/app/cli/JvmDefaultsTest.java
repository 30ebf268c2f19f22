package io.sluice.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class JvmDefaultsTest {
  private static final String KEY = JvmDefaults.COMMON_POOL_PARALLELISM;

  @Test
  void onTwoProcessorsOrFewerTheCommonPoolGetsTwoThreadsNotOneThreadPerTask() {
    for (int processors = 1; processors <= 2; processors++) {
      Properties properties = new Properties();
      JvmDefaults.apply(properties, processors);
      assertEquals("2", properties.getProperty(KEY), processors + " processors");
    }
  }

  @Test
  void onThreeProcessorsOrMoreTheJdksDefaultStands() {
    Properties properties = new Properties();
    JvmDefaults.apply(properties, 3);
    assertNull(properties.getProperty(KEY));
  }

  @Test
  void theOperatorsOwnSettingWins() {
    Properties properties = new Properties();
    properties.setProperty(KEY, "1");
    JvmDefaults.apply(properties, 2);
    assertEquals("1", properties.getProperty(KEY));
  }
}
