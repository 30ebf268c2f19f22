package io.sluice.app.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigurationReferenceTest {

    @Test
    void theCommittedReferenceIsWhatTheSchemaGenerates() throws IOException {
        Path page = RepositoryRoot.find().resolve(ConfigurationReference.PAGE);
        String generated = ConfigurationReference.generate();
        if (Boolean.getBoolean("sluice.docs.write")) {
            Files.writeString(page, generated, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(page) ? Files.readString(page, StandardCharsets.UTF_8) : "";
        assertEquals(generated, committed, ConfigurationReference.PAGE + " is not what config.schema.json"
                + " generates: run mvn -B -q -pl app -am test -Dtest=ConfigurationReferenceTest"
                + " -Dsurefire.failIfNoSpecifiedTests=false -Dsluice.docs.write=true and commit the page");
    }

    @Test
    void everySettingOfTheSchemaHasARowWithItsDefault() {
        String page = ConfigurationReference.generate();
        assertTrue(page.contains("| `gate.maxLease` | `64` |"), "a nested setting and its default");
        assertTrue(page.contains("| `providers.<provider>.quotas` (required) |"), "a map's entries, required marked");
        assertTrue(page.contains("| `providers.<provider>.limits[].per` |"), "a list's entries");
        assertTrue(page.contains("| `tenants.<tenant>.tier` |"), "a tenant id placeholder");
        assertTrue(page.contains("| `tiers.<tier>.weight` |"), "a key named by the map's own words");
        assertTrue(page.contains("| `ladder` | `[\"1s\",\"5s\",\"30s\",\"2m\",\"10m\"]` |"), "a list default");
    }

    @Test
    void aSettingAddedToTheSchemaGetsARow() throws IOException {
        String schema = """
                {"type": "object", "properties": {
                  "http": {"type": "object", "properties": {
                    "port": {"description": "The port.", "type": "integer", "default": 8080,
                             "x-expected": "a port | like 8080"},
                    "brandNew": {"description": "Added today.", "$ref": "#/$defs/duration", "default": "1s"}}}},
                 "$defs": {"duration": {"type": "string", "x-expected": "a duration like \\"5s\\""}}}
                """;
        String page = ConfigurationReference.generate(new ObjectMapper().readTree(schema));
        assertTrue(page.contains("| `http.brandNew` | `1s` | a duration like \"5s\" | Added today. |"), page);
        assertTrue(page.contains("| `http.port` | `8080` | a port \\| like 8080 | The port. |"), page);
    }
}
