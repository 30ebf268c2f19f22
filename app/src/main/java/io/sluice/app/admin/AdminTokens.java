package io.sluice.app.admin;

import io.sluice.config.AdminConfig;
import io.sluice.config.Secret;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

/**
 * Who may do what on the admin API: a request's {@code Authorization: Bearer <token>} against
 * {@code admin.readToken} (reads) and {@code admin.writeToken} (reads and writes). Without a
 * configured token nothing is allowed.
 *
 * <p>Compared in constant time: both sides are hashed (SHA-256) and the digests compared with
 * {@link MessageDigest#isEqual}, so neither the position of the first wrong character nor the
 * token's length shows in the time taken. A token is read from its secret on every request (a
 * {@code ${file:...}} secret follows its file) and never logged, echoed or put in an error. One
 * shorter than {@link AdminConfig#MIN_TOKEN_LENGTH} matches nothing; start-up refuses it too. A
 * request's failures are counted per address by {@link FailedAttempts}.
 */
final class AdminTokens {
  /** What a request may do. */
  public enum Access { NONE, READ, WRITE }

  /** Longest Authorization header looked at; a longer one is refused unread. */
  static final int MAX_HEADER = 8_192;

  private final Optional<Secret> read;
  private final Optional<Secret> write;

  public AdminTokens(AdminConfig config) {
    this.read = config.readToken();
    this.write = config.writeToken();
  }

  /** What the request's {@code Authorization} header (or null) allows. */
  public Access access(String authorization) {
    if (authorization == null || authorization.length() > MAX_HEADER
        || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Access.NONE;
    }
    byte[] given = sha256(authorization.substring(7).strip());
    // Both compared every time: how long the check takes does not say which one matched.
    boolean writes = matches(write, given);
    boolean reads = matches(read, given);
    return writes ? Access.WRITE : reads ? Access.READ : Access.NONE;
  }

  /** True if a token of either kind is configured. */
  public boolean configured() {
    return read.isPresent() || write.isPresent();
  }

  private static boolean matches(Optional<Secret> token, byte[] given) {
    if (token.isEmpty()) {
      return false;
    }
    String value = token.get().value();
    // A token made short after start-up (a ${file:} rewritten) opens nothing.
    return AdminConfig.strongEnough(value) && MessageDigest.isEqual(sha256(value), given);
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
