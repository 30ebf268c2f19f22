package io.sluice.app.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

class JsonLineEncoderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  @DisplayName("one JSON object per line, MDC and key-value pairs as fields, line breaks and quotes escaped")
  void oneObjectPerLine() throws Exception {
    String json;
    try (CapturedLines lines = new CapturedLines("io.sluice.test.json", Level.INFO)) {
      org.slf4j.Logger log = LoggerFactory.getLogger("io.sluice.test.json");
      MDC.put("tenant", "acme");
      try {
        log.info("first \"quoted\"\nforged line");
      } finally {
        MDC.remove("tenant");
      }
      log.atWarn().addKeyValue("provider", "payments").addKeyValue("message", "kv")
          .setCause(new IllegalStateException("boom")).log("second");
      json = lines.json();
    }

    List<String> rows = json.lines().toList();
    assertEquals(2, rows.size(), json);
    JsonNode first = JSON.readTree(rows.get(0));
    assertEquals("INFO", first.path("level").asText());
    assertEquals("io.sluice.test.json", first.path("logger").asText());
    assertEquals("first \"quoted\"\nforged line", first.path("message").asText());
    assertEquals("acme", first.path("tenant").asText());
    assertTrue(first.path("time").asText().endsWith("Z"), first.toString());
    JsonNode second = JSON.readTree(rows.get(1));
    assertEquals("WARN", second.path("level").asText());
    assertEquals("payments", second.path("provider").asText());
    assertEquals("second", second.path("message").asText(), "a field named message is kept apart");
    assertEquals("kv", second.path("mdc.message").asText());
    assertEquals("java.lang.IllegalStateException: boom", second.path("error").asText());
    assertTrue(second.path("stack").asText().contains("JsonLineEncoderTest"), second.toString());
    assertTrue(second.path("tenant").isMissingNode(), "the MDC was cleared");
  }
}
