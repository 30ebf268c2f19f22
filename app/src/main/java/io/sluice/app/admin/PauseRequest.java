package io.sluice.app.admin;

import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.OperatorText;
import io.sluice.dispatcher.pause.PauseScope;
import java.io.IOException;
import java.net.InetAddress;
import java.util.Objects;

/**
 * A pause or resume an operator asked for, checked against the configuration: the CLI's
 * {@code pause provider P [--endpoint T]}, {@code pause tenant T [--provider P]} and the admin
 * API's {@code POST /admin/pause} alike. A provider must be configured (a typo must not pause
 * nothing and say "paused"); a tenant must be a valid tenant name (tenants may come from
 * elsewhere than the file). A reason longer than {@value OperatorText#MAX_REASON} code points is
 * refused rather than cut, so that what is stored is what was typed (cleaned of control
 * characters).
 *
 * @param scope  what to pause or resume
 * @param reason the reason given, as typed (stored {@link OperatorText#clean}ed)
 */
public record PauseRequest(PauseScope scope, String reason) {

  /** The request is not one Sluice can carry out; the message says why (exit 2, or HTTP 400). */
  public static final class Refused extends IllegalArgumentException {
    public Refused(String message) {
      super(message);
    }
  }

  /**
   * @param provider the provider named, or null for every provider
   * @param tenant   the tenant named, or null for every tenant
   * @param reason   why, or null
   * @throws Refused when neither is named, a provider is not configured, a name is invalid, or
   *                 the reason is too long
   */
  public static PauseRequest of(SluiceConfig config, String provider, String tenant,
      String reason) {
    if (provider != null && !config.providers().containsKey(provider)) {
      throw new Refused("no provider \"" + OperatorText.clean(provider, 60)
          + "\" is configured; configured: " + String.join(", ", config.providers().keySet()));
    }
    String why = reason == null ? "" : reason;
    int length = why.codePointCount(0, why.length());
    if (length > OperatorText.MAX_REASON) {
      throw new Refused("the reason is " + length + " characters long; at most "
          + OperatorText.MAX_REASON);
    }
    try {
      return new PauseRequest(PauseScope.of(provider, tenant), why);
    } catch (IllegalArgumentException e) {
      throw new Refused(e.getMessage());
    }
  }

  public PauseRequest {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(reason, "reason");
  }

  /** {@code user@host} of this process: who pauses from the command line. */
  public static String localOperator() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "unknown-host";
    }
    return System.getProperty("user.name", "unknown") + "@" + host;
  }
}
