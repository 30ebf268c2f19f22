package io.sluice.app.ops;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.DefaultObjectNameFactory;
import com.codahale.metrics.jmx.JmxReporter;
import com.codahale.metrics.jmx.ObjectNameFactory;
import java.util.Map;
import java.util.Optional;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Publishes a registry's metrics as JMX MBeans under the domain {@value #DOMAIN}, for JConsole,
 * VisualVM or a JMX exporter.
 *
 * <p>Labelled names ({@link MetricNames}) become object-name keys, so that JConsole groups a
 * family under one node: {@code sluice_gate_admitted{provider="payments-api",tier="pro"}} is
 * {@code sluice:name=sluice_gate_admitted,provider=payments-api,tier=pro} (values quoted when
 * JMX requires it). Any other name keeps Dropwizard's default object name.
 */
public final class JmxExposure implements AutoCloseable {
  public static final String DOMAIN = "sluice";

  private final JmxReporter reporter;

  private JmxExposure(JmxReporter reporter) {
    this.reporter = reporter;
  }

  /** Registers every metric of {@code registry}, now and as they are added, in the platform MBean server. */
  public static JmxExposure start(MetricRegistry registry) {
    JmxReporter reporter = JmxReporter.forRegistry(registry)
        .inDomain(DOMAIN)
        .createsObjectNamesWith(new LabelledObjectNames())
        .build();
    reporter.start();
    return new JmxExposure(reporter);
  }

  /** The object name a registry name is published under. */
  public static ObjectName objectName(String registryName) {
    return new LabelledObjectNames().createName("unused", DOMAIN, registryName);
  }

  /** Unregisters every MBean this exposure registered. */
  @Override
  public void close() {
    reporter.stop();
  }

  private static final class LabelledObjectNames implements ObjectNameFactory {
    private final ObjectNameFactory fallback = new DefaultObjectNameFactory();

    @Override
    public ObjectName createName(String type, String domain, String name) {
      Optional<MetricName> parsed = name.indexOf('{') >= 0 ? MetricNames.parse(name) : Optional.empty();
      if (parsed.isEmpty() || parsed.get().labels().containsKey("name")) {
        return fallback.createName(type, domain, name);
      }
      StringBuilder keys = new StringBuilder("name=").append(value(parsed.get().base()));
      for (Map.Entry<String, String> label : parsed.get().labels().entrySet()) {
        keys.append(',').append(label.getKey()).append('=').append(value(label.getValue()));
      }
      try {
        return new ObjectName(domain + ":" + keys);
      } catch (MalformedObjectNameException e) {
        return fallback.createName(type, domain, name);
      }
    }

    /** Quotes only values JMX cannot take bare, so simple names stay readable. */
    private static String value(String raw) {
      for (char c : raw.toCharArray()) {
        if (c == ',' || c == '=' || c == ':' || c == '"' || c == '*' || c == '?' || c == '\n') {
          return ObjectName.quote(raw);
        }
      }
      return raw;
    }
  }
}
