package io.sluice.config;

import java.util.List;
import java.util.Objects;

/**
 * A per-tenant endpoint's own Standard Webhooks signing secret (issue 33): its calls are signed
 * with it, never with another tenant's, so a receiver holds a key that signs for it alone.
 */
public sealed interface EndpointSecret {
  /**
   * The file's: {@code tenants.<id>.endpoints.<provider>.secret}, one or more secrets (each a
   * {@link Secret}: {@code ${file:}}, {@code ${env:}}), every one signing; list the new one first
   * beside the old to rotate, as a provider's {@code signing.standardWebhooks.secrets}.
   */
  record Given(List<Secret> secrets) implements EndpointSecret {
    public Given {
      secrets = List.copyOf(secrets);
      if (secrets.isEmpty()) {
        throw new IllegalArgumentException("at least one secret");
      }
    }
  }

  /**
   * The registry's: sealed ({@link SealingKeys}), so the record holding it can go to Redis and
   * the operator topic. After a rotation the previous secret signs too, beside the current one,
   * until {@code previousUntilMillis}: receivers move to the new secret meanwhile and no call is
   * refused.
   *
   * @param current             the sealed secret that signs
   * @param previous            the sealed secret it replaced, or null
   * @param previousUntilMillis until when (epoch ms, excluded) {@code previous} signs too
   */
  record Sealed(String current, String previous, long previousUntilMillis)
      implements EndpointSecret {
    public Sealed {
      Objects.requireNonNull(current, "current");
    }

    /** A secret with no previous one. */
    public Sealed(String current) {
      this(current, null, 0);
    }

    /** Whether {@code previous} signs at {@code nowMillis} (the overlap of a rotation). */
    public boolean previousSigns(long nowMillis) {
      return previous != null && nowMillis < previousUntilMillis;
    }

    /** The sealed secrets that sign at {@code nowMillis}: the current one first. */
    public List<String> signingAt(long nowMillis) {
      return previousSigns(nowMillis) ? List.of(current, previous) : List.of(current);
    }
  }
}
