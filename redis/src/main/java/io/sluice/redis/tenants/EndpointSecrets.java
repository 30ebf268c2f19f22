package io.sluice.redis.tenants;

import io.sluice.config.EndpointSecret;
import io.sluice.config.ProviderConfig;
import io.sluice.config.SealingKeys;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import io.sluice.config.WebhookSecret;
import io.sluice.redis.tenants.TenantInput.Refused;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Each registry endpoint's own Standard Webhooks signing secret (issue 33): given to it when the
 * endpoint is created, kept when the record is written again, rotated with an overlap, and
 * opened for its operator. Pure: the secrets made and the time are passed in, and the keys are
 * the configuration's ({@link SealingKeys}); the record only ever holds them sealed.
 *
 * <p>Why a secret per endpoint: with the provider's one secret every tenant's receiver holds the
 * key that signs for every other, so any tenant can forge a webhook another accepts.
 */
public final class EndpointSecrets {
  /** Bytes of a secret made here: the specification asks for 24 to 64. */
  static final int KEY_BYTES = 32;
  /** How long the previous secret signs beside the new one after a rotation, by default. */
  public static final Duration DEFAULT_OVERLAP = Duration.ofHours(24);
  /** Longest overlap: a previous secret signing for longer is no longer a rotation. */
  public static final Duration MAX_OVERLAP = Duration.ofDays(30);
  private static final SecureRandom RANDOM = new SecureRandom();

  private EndpointSecrets() {}

  /** A new secret, {@code whsec_} and the base64 of {@value #KEY_BYTES} random bytes. */
  public static String fresh() {
    byte[] key = new byte[KEY_BYTES];
    RANDOM.nextBytes(key);
    return WebhookSecret.PREFIX + Base64.getEncoder().encodeToString(key);
  }

  /** The record written, and the secrets made for its new endpoints (provider to secret). */
  public record Settled(TenantRecord record, Map<String, String> made) {}

  /**
   * {@code next} (what an operator's command or PUT gives) with a secret on every endpoint: the
   * one given (sealed already), else the one {@code current} holds for that provider (a URL or
   * rate changed keeps its secret), else a new one from {@code fresh}, sealed. Without sealing
   * keys an endpoint gets none; refused then if its provider signs and does not share its
   * secret (its calls could not be signed).
   */
  public static Settled settle(SluiceConfig config, TenantRecord current, TenantRecord next,
      Supplier<String> fresh) {
    Map<String, TenantEndpoint> endpoints = new TreeMap<>(next.endpoints());
    Map<String, String> made = new TreeMap<>();
    for (Map.Entry<String, TenantEndpoint> e : next.endpoints().entrySet()) {
      String provider = e.getKey();
      TenantEndpoint endpoint = e.getValue();
      if (endpoint.secret().isPresent()) {
        continue;
      }
      Optional<EndpointSecret> kept = current == null ? Optional.empty()
          : Optional.ofNullable(current.endpoints().get(provider)).flatMap(TenantEndpoint::secret);
      if (kept.isPresent()) {
        endpoints.put(provider, endpoint.withSecret(kept));
      } else if (config.secrets().present()) {
        String secret = fresh.get();
        endpoints.put(provider, endpoint.withSecret(Optional.of(
            new EndpointSecret.Sealed(seal(config.secrets(), provider, secret)))));
        made.put(provider, secret);
      } else if (signsAlone(config.providers().get(provider))) {
        throw new Refused("endpoints." + provider + ".secret", "an endpoint of provider \""
            + provider + "\" is signed with a secret of its own, kept sealed: configure"
            + " secrets.sealingKeys (or set sharedSigningSecret: true on the provider)");
      }
    }
    return new Settled(TenantInput.checkSize(next.withEndpoints(endpoints)), made);
  }

  /** A secret an operator gives ({@code whsec_...}), checked and sealed; never quoted. */
  static EndpointSecret given(SluiceConfig config, String provider, String secret) {
    String at = "endpoints." + provider + ".secret";
    try {
      WebhookSecret.key(secret);
    } catch (IllegalArgumentException e) {
      throw new Refused(at, e.getMessage());
    }
    if (!config.secrets().present()) {
      throw new Refused(at, "no secrets.sealingKeys configured to keep it sealed");
    }
    return new EndpointSecret.Sealed(seal(config.secrets(), provider, secret));
  }

  /** A rotation done: the record to write, the new secret, and until when the old one signs. */
  public record Rotated(TenantRecord record, String secret, long previousUntilMillis) {}

  /**
   * {@code current} with {@code provider}'s registry endpoint signed by {@code secret} (checked;
   * {@link #fresh} when the operator gives none) and, until {@code nowMillis + overlap}, by the
   * secret it had: receivers move to the new one meanwhile and refuse no call. A previous secret
   * still in its overlap is dropped: two sign at most.
   */
  public static Rotated rotate(SluiceConfig config, TenantRecord current, String provider,
      String secret, long nowMillis, Duration overlap) {
    String at = "endpoints." + provider;
    TenantEndpoint endpoint = current == null ? null : current.endpoints().get(provider);
    if (endpoint == null) {
      throw new Refused(at, "the tenant has no endpoint toward it in the registry (a file"
          + " endpoint's secret is rotated in the file: list the new one first beside the old)");
    }
    if (overlap.isNegative() || overlap.compareTo(MAX_OVERLAP) > 0) {
      throw new Refused("overlap", "expected 0 to " + MAX_OVERLAP.toDays() + " days");
    }
    EndpointSecret.Sealed sealed = (EndpointSecret.Sealed) given(config, provider, secret);
    Optional<EndpointSecret> old = endpoint.secret();
    long until = nowMillis + overlap.toMillis();
    EndpointSecret next = old.isPresent() && old.get() instanceof EndpointSecret.Sealed was
        && !overlap.isZero()
        ? new EndpointSecret.Sealed(sealed.current(), was.current(), until)
        : sealed;
    Map<String, TenantEndpoint> endpoints = new TreeMap<>(current.endpoints());
    endpoints.put(provider, endpoint.withSecret(Optional.of(next)));
    return new Rotated(TenantInput.checkSize(current.withEndpoints(endpoints)), secret,
        next instanceof EndpointSecret.Sealed s && s.previous() != null ? until : nowMillis);
  }

  /**
   * The secrets that sign {@code provider}'s registry endpoint of {@code record} at
   * {@code nowMillis}, opened, the current one first: for the write-token API and the CLI only.
   */
  public static List<String> opened(SluiceConfig config, TenantRecord record, String provider,
      long nowMillis) {
    TenantEndpoint endpoint = record == null ? null : record.endpoints().get(provider);
    if (endpoint == null || endpoint.secret().isEmpty()
        || !(endpoint.secret().get() instanceof EndpointSecret.Sealed sealed)) {
      throw new Refused("endpoints." + provider, "the tenant has no registry endpoint toward it"
          + " with a secret of its own");
    }
    List<String> out = new ArrayList<>();
    for (String one : sealed.signingAt(nowMillis)) {
      try {
        out.add(config.secrets().open(one));
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new Refused("endpoints." + provider + ".secret", "cannot be opened: "
            + e.getMessage());
      }
    }
    return out;
  }

  private static String seal(SealingKeys keys, String provider, String secret) {
    try {
      return keys.seal(secret);
    } catch (IllegalArgumentException | IllegalStateException e) {
      // An unread ${file:}/${env:} key (an operator's command without it) or a bad key.
      throw new Refused("secrets.sealingKeys", "cannot seal endpoints." + provider
          + "'s secret: " + e.getMessage());
    }
  }

  /** Whether {@code provider}'s endpoints must each have their own secret to be signed. */
  private static boolean signsAlone(ProviderConfig provider) {
    return provider != null && !provider.request().signingSecrets().isEmpty()
        && !provider.endpoints().sharedSigningSecret();
  }
}
