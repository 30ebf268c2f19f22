package io.sluice.dispatcher.provider.signing;

import io.sluice.config.EndpointSecret;
import io.sluice.config.SealingKeys;
import io.sluice.config.Secret;
import io.sluice.config.TenantEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which secrets sign the calls toward one destination, at a given time (passed in):
 * <ul>
 *   <li>a provider's own URL: its {@code signing} secrets;</li>
 *   <li>a tenant's endpoint with a secret of its own: that secret alone (issue 33: never the
 *       provider's, which every other tenant's receiver would hold too); a registry endpoint's is
 *       sealed ({@link SealingKeys}) and opened here, once, and after a rotation its previous
 *       secret signs beside it until the overlap ends;</li>
 *   <li>a tenant's endpoint without one: the provider's secrets only where the provider sets
 *       {@code sharedSigningSecret: true}; else unsigned (such an endpoint is refused before it is
 *       called while its provider signs: {@code ConfigChecks}, {@code EndpointInput.refusal}).</li>
 * </ul>
 * A sealed secret that cannot be opened (its key no longer configured, the value altered) makes
 * {@link #problem} say why, naming the key id, never the secret: its calls wait as for a missing
 * credential rather than go unsigned.
 */
public final class EndpointSigning {
  /** Calls go unsigned. */
  public static final EndpointSigning NONE = new EndpointSigning(null, null, 0, List.of(), null);

  private final StandardWebhooksSigner signer;
  /** The current and the previous secret together, during a rotation's overlap; else null. */
  private final StandardWebhooksSigner overlapping;
  private final long overlapUntilMillis;
  private final List<Secret> secrets;
  private final String problem;

  private EndpointSigning(StandardWebhooksSigner signer, StandardWebhooksSigner overlapping,
      long overlapUntilMillis, List<Secret> secrets, String problem) {
    this.signer = signer;
    this.overlapping = overlapping;
    this.overlapUntilMillis = overlapUntilMillis;
    this.secrets = List.copyOf(secrets);
    this.problem = problem;
  }

  /** A provider's own URL, signed with its {@code signing} secrets (none: unsigned). */
  public static EndpointSigning provider(List<Secret> secrets) {
    return secrets.isEmpty() ? NONE
        : new EndpointSigning(new StandardWebhooksSigner(secrets), null, 0, secrets, null);
  }

  /**
   * A tenant's endpoint.
   *
   * @param providerSecrets the provider's {@code signing} secrets
   * @param shared          the provider's {@code sharedSigningSecret}
   * @param keys            what opens a registry endpoint's sealed secret
   */
  public static EndpointSigning of(TenantEndpoint endpoint, List<Secret> providerSecrets,
      boolean shared, SealingKeys keys) {
    Optional<EndpointSecret> own = endpoint.secret();
    if (own.isEmpty()) {
      return shared ? provider(providerSecrets) : NONE;
    }
    if (own.get() instanceof EndpointSecret.Given given) {
      return provider(given.secrets());
    }
    EndpointSecret.Sealed sealed = (EndpointSecret.Sealed) own.get();
    Secret current;
    try {
      current = Secret.literal(keys.open(sealed.current()));
    } catch (IllegalArgumentException | IllegalStateException e) {
      return new EndpointSigning(null, null, 0, List.of(),
          "the endpoint's signing secret cannot be opened: " + e.getMessage());
    }
    Secret previous = null;
    if (sealed.previous() != null) {
      try {
        previous = Secret.literal(keys.open(sealed.previous()));
      } catch (IllegalArgumentException | IllegalStateException e) {
        // Its key retired: the overlap ends early; the current secret still signs.
      }
    }
    List<Secret> all = new ArrayList<>(List.of(current));
    if (previous != null) {
      all.add(previous);
    }
    return new EndpointSigning(new StandardWebhooksSigner(List.of(current)),
        previous == null ? null : new StandardWebhooksSigner(all),
        sealed.previousUntilMillis(), all, null);
  }

  /**
   * The {@code webhook-signature} of one call at {@code nowMillis}, or null when calls go
   * unsigned.
   */
  public String signature(String id, long timestampSeconds, byte[] body, long nowMillis) {
    StandardWebhooksSigner now = overlapping != null && nowMillis < overlapUntilMillis
        ? overlapping : signer;
    return now == null ? null : now.signature(id, timestampSeconds, body);
  }

  /** Whether calls carry a signature (or would, once {@link #problem} is solved). */
  public boolean signs() {
    return signer != null || problem != null;
  }

  /** Why calls cannot be signed now (no secret quoted), or empty. */
  public Optional<String> problem() {
    return Optional.ofNullable(problem);
  }

  /** The secrets that may sign, for masking them in what an answer echoes. */
  public List<Secret> secrets() {
    return secrets;
  }
}
