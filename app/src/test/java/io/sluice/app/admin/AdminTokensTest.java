package io.sluice.app.admin;

import static io.sluice.app.admin.AdminTokens.Access.NONE;
import static io.sluice.app.admin.AdminTokens.Access.READ;
import static io.sluice.app.admin.AdminTokens.Access.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.config.AdminConfig;
import io.sluice.config.Secret;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What an Authorization header allows on the admin API. */
class AdminTokensTest {
  private final AdminTokens both = new AdminTokens(new AdminConfig(
      Optional.of(Secret.literal("r-token-5a8c41e9f02b")),
      Optional.of(Secret.literal("w-token-c3d7e690b14a")), false));

  @Test
  @DisplayName("the write token writes and reads, the read token reads, anything else nothing")
  void access() {
    assertEquals(WRITE, both.access("Bearer w-token-c3d7e690b14a"));
    assertEquals(READ, both.access("Bearer r-token-5a8c41e9f02b"));
    assertEquals(READ, both.access("bearer  r-token-5a8c41e9f02b "), "the scheme is case-insensitive");
    assertEquals(NONE, both.access(null));
    assertEquals(NONE, both.access("Bearer "));
    assertEquals(NONE, both.access("Basic r-token-5a8c41e9f02b"));
    assertEquals(NONE, both.access("Bearer r-token-5a8c41e9f02b2"));
    assertEquals(NONE, both.access("Bearer r-token-5a8c41e9f02"));
    assertEquals(NONE, both.access("Bearer " + "r".repeat(AdminTokens.MAX_HEADER)));
  }

  @Test
  @DisplayName("with only a read token, nothing writes; with none, nothing at all")
  void partial() {
    AdminTokens readOnly = new AdminTokens(new AdminConfig(Optional.of(Secret.literal("r-token-5a8c41e9f02b")),
        Optional.empty(), false));
    assertEquals(READ, readOnly.access("Bearer r-token-5a8c41e9f02b"));
    assertEquals(NONE, new AdminTokens(AdminConfig.NONE).access("Bearer "));
    assertEquals(NONE, new AdminTokens(AdminConfig.NONE).access("Bearer null"));
  }

  @Test
  @DisplayName("a token shorter than 16 characters opens nothing, even where it is configured")
  void shortTokensOpenNothing() {
    String fifteen = "x".repeat(AdminConfig.MIN_TOKEN_LENGTH - 1);
    AdminTokens weak = new AdminTokens(new AdminConfig(Optional.of(Secret.literal("R")),
        Optional.of(Secret.literal(fifteen)), false));
    assertEquals(NONE, weak.access("Bearer R"), "one character was accepted before");
    assertEquals(NONE, weak.access("Bearer " + fifteen));
  }
}
