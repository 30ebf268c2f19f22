package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

class JmxExposureTest {
  private final MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();

  @Test
  void shouldPublishALabelledCounterUnderTheSluiceDomainWithLabelsAsKeys() throws Exception {
    MetricRegistry registry = new MetricRegistry();
    registry.counter(MetricNames.name("jmx_test_admitted", "provider", "payments-api", "tier", "pro")).inc(3);

    try (JmxExposure ignored = JmxExposure.start(registry)) {
      ObjectName name = new ObjectName("sluice:name=jmx_test_admitted,provider=payments-api,tier=pro");
      assertTrue(mbeans.isRegistered(name), "registered: " + mbeans.queryNames(new ObjectName("sluice:*"), null));
      assertEquals(3L, mbeans.getAttribute(name, "Count"));
    }
  }

  @Test
  void shouldQuoteLabelValuesJmxCannotTakeBare() throws Exception {
    ObjectName name = JmxExposure.objectName(MetricNames.name("jmx_test_dead", "reason", "a,b=c"));

    assertEquals("sluice", name.getDomain());
    assertEquals("a,b=c", ObjectName.unquote(name.getKeyProperty("reason")));
  }

  @Test
  void shouldPublishMetricsAddedAfterItStartedAndUnpublishOnClose() throws Exception {
    MetricRegistry registry = new MetricRegistry();
    JmxExposure exposure = JmxExposure.start(registry);
    registry.counter(MetricNames.name("jmx_test_late", "tier", "free")).inc();
    ObjectName name = new ObjectName("sluice:name=jmx_test_late,tier=free");
    assertTrue(mbeans.isRegistered(name));

    exposure.close();

    assertFalse(mbeans.isRegistered(name));
  }
}
