package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.serde.SchemaFiles;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Users read the defaults in config.schema.json; the loader applies ConfigDefaults. One truth. */
class ConfigDefaultsTest {
  private static final JsonNode SCHEMA = SchemaFiles.read(SchemaFiles.CONFIG);

  static Stream<Arguments> defaults() {
    return Stream.of(
        Arguments.of("/properties/kafka/properties/bootstrap", ConfigDefaults.KAFKA_BOOTSTRAP),
        Arguments.of("/properties/kafka/properties/topicPrefix", ConfigDefaults.TOPIC_PREFIX),
        Arguments.of("/properties/redis/properties/uri", ConfigDefaults.REDIS_URI),
        Arguments.of("/properties/ladder", texts(ConfigDefaults.LADDER)),
        Arguments.of("/properties/maxAttempts", ConfigDefaults.MAX_ATTEMPTS),
        Arguments.of("/properties/reservationHorizon",
            Durations.format(ConfigDefaults.RESERVATION_HORIZON)),
        Arguments.of("/properties/http/properties/port", ConfigDefaults.HTTP_PORT),
        Arguments.of("/properties/http/properties/bind", ConfigDefaults.HTTP_BIND),
        Arguments.of("/$defs/tier/properties/weight", ConfigDefaults.TIER_WEIGHT),
        Arguments.of("/$defs/provider/properties/maxInFlight", ConfigDefaults.MAX_IN_FLIGHT),
        Arguments.of("/$defs/provider/properties/timeout", Durations.format(ConfigDefaults.TIMEOUT)),
        Arguments.of("/$defs/provider/properties/onRedisDown", ConfigDefaults.ON_REDIS_DOWN.code()),
        Arguments.of("/$defs/provider/properties/shadow", ConfigDefaults.SHADOW),
        Arguments.of("/$defs/tenant/properties/shadow", ConfigDefaults.SHADOW),
        Arguments.of("/$defs/provider/properties/forwardHeaders", ConfigDefaults.FORWARD_HEADERS),
        Arguments.of("/$defs/provider/properties/maxCost", ConfigDefaults.MAX_COST),
        Arguments.of("/$defs/provider/properties/learn", ConfigDefaults.LEARN),
        Arguments.of("/$defs/provider/properties/learnedFloor", ConfigDefaults.LEARNED_FLOOR),
        Arguments.of("/$defs/provider/properties/maxRetryAfter",
            Durations.format(ConfigDefaults.MAX_RETRY_AFTER)),
        Arguments.of("/properties/gate/properties/applicationId", ConfigDefaults.GATE_APPLICATION_ID),
        Arguments.of("/properties/gate/properties/streamThreads", ConfigDefaults.GATE_STREAM_THREADS),
        Arguments.of("/properties/gate/properties/maxPayloadBytes",
            ConfigDefaults.GATE_MAX_PAYLOAD_BYTES),
        Arguments.of("/properties/gate/properties/leaseTarget",
            Durations.format(ConfigDefaults.GATE_LEASE_TARGET)),
        Arguments.of("/properties/gate/properties/maxLease", ConfigDefaults.GATE_MAX_LEASE),
        Arguments.of("/properties/gate/properties/redisTimeout",
            Durations.format(ConfigDefaults.GATE_REDIS_TIMEOUT)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("defaults")
  void shouldDocumentInTheSchemaTheDefaultTheLoaderApplies(String pointer, Object javaDefault) {
    JsonNode documented = SCHEMA.at(pointer + "/default");

    JsonNode applied = Json.mapper().valueToTree(javaDefault);

    if (applied.isNumber()) {
      assertEquals(applied.doubleValue(), documented.doubleValue(), pointer);
    } else {
      assertEquals(applied, documented, pointer);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"readToken", "writeToken"})
  void shouldDocumentTheAdminTokensMinimumTheLoaderEnforces(String token) {
    // Before (issue 33): start-up refused a token under 16 characters the schema did not mention.
    String description = SCHEMA.at("/properties/admin/properties/" + token + "/description").asText();

    assertTrue(description.contains("at least " + AdminConfig.MIN_TOKEN_LENGTH + " characters"), description);
  }

  private static List<String> texts(List<Duration> durations) {
    return durations.stream().map(Durations::format).toList();
  }
}
