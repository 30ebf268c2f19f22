package io.sluice.config;

import java.util.Optional;

/**
 * The admin API under {@code /admin/} on the ops port ({@code admin:} in the file). Without a
 * token the API refuses everything: {@code readToken} opens the GETs ({@code /admin/status}),
 * {@code writeToken} the POSTs ({@code /admin/pause}, {@code /admin/resume}) and the GETs too.
 * Each is a {@link Secret}: write {@code ${env:NAME}} or {@code ${file:PATH}} rather than the
 * token itself. Requests from another host than this one are refused unless {@code allowRemote}.
 *
 * <p>A configured token has at least {@link #MIN_TOKEN_LENGTH} characters: a shorter one stops
 * start-up, naming its field and never its value (issue 33: one character was accepted). The
 * admin API also refuses a token that became short later (a {@code ${file:}} rewritten).
 *
 * @param readToken   the bearer token of the read-only requests, if any
 * @param writeToken  the bearer token of every request, if any
 * @param allowRemote whether requests from other hosts are served (the ops port's {@code http.bind}
 *                    must also listen beyond this host)
 */
public record AdminConfig(Optional<Secret> readToken, Optional<Secret> writeToken,
    boolean allowRemote) {
  /** No tokens: the admin API refuses every request. */
  public static final AdminConfig NONE = new AdminConfig(Optional.empty(), Optional.empty(), false);

  /** The fewest characters an admin token may have; {@code openssl rand -hex 16} gives 32. */
  public static final int MIN_TOKEN_LENGTH = 16;

  /** Whether {@code token} is long enough to be an admin token; the value is never shown. */
  public static boolean strongEnough(String token) {
    return token != null && token.strip().length() >= MIN_TOKEN_LENGTH;
  }
}
