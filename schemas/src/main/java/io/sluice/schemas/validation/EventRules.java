package io.sluice.schemas.validation;

import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import java.util.Objects;
import java.util.Optional;

/**
 * The WorkEvent rules that depend on configuration: the value's size, the provider, the cost.
 *
 * <p>They are kept apart from {@link EventValidator} because the schema cannot know them (a
 * producer validating against the published schema has no access to our configuration) and
 * because they change with a config reload while the structural rules do not. Deadlines and
 * unknown tenants are the gate's decisions, not these: an expired event and an unlisted tenant are
 * not malformed, they have reasons of their own ({@code expired}, {@code unknown_tenant}).
 *
 * <p>Thread-safe; holds only the immutable configuration.
 */
public final class EventRules {
  private final SluiceConfig config;
  private final EventValidator validator;

  public EventRules(SluiceConfig config) {
    this(config, new EventValidator());
  }

  public EventRules(SluiceConfig config, EventValidator validator) {
    this.config = Objects.requireNonNull(config, "config");
    this.validator = Objects.requireNonNull(validator, "validator");
  }

  /**
   * The whole check of one inbound value, cheapest first: its size before parsing (an oversize
   * value is never parsed), then its structure, then the configured provider and cost.
   */
  public ValidationResult validate(byte[] value) {
    Optional<ValidationResult.Invalid> oversize = checkSize(value == null ? 0 : value.length);
    if (oversize.isPresent()) {
      return oversize.get();
    }
    ValidationResult result = validator.validate(value);
    if (result instanceof ValidationResult.Valid valid) {
      return check(valid.event(), value.length);
    }
    return result;
  }

  /** Invalid when the value is larger than {@code gate.maxPayloadBytes}. */
  public Optional<ValidationResult.Invalid> checkSize(int valueBytes) {
    int max = config.gate().maxPayloadBytes();
    if (valueBytes <= max) {
      return Optional.empty();
    }
    return Optional.of(new ValidationResult.Invalid(Reason.INVALID, "payload is " + valueBytes
        + " bytes, more than the configured maxPayloadBytes " + max));
  }

  /**
   * The configuration rules for an event that passed {@link EventValidator}: size, then provider
   * ({@link Reason#UNKNOWN_PROVIDER}), then cost against the provider's maxCost.
   */
  public ValidationResult check(WorkEvent event, int valueBytes) {
    Optional<ValidationResult.Invalid> oversize = checkSize(valueBytes);
    if (oversize.isPresent()) {
      return oversize.get();
    }
    ProviderConfig provider = config.providers().get(event.provider());
    if (provider != null && event.cost() > provider.maxCost()) {
      return new ValidationResult.Invalid(Reason.INVALID, "field 'cost' is " + event.cost()
          + ", more than the maxCost " + provider.maxCost() + " of provider "
          + Shown.quoted(event.provider()));
    }
    return checkSendable(event);
  }

  /**
   * The rules an event admitted earlier must still meet to be sent: its provider is configured,
   * and its cost fits the provider's smallest cost window. Not {@code maxCost}: that is an
   * admission rule, judged once at the gate, so a reload that lowers it does not dead-letter events
   * the gate admitted (and charged) under the old one.
   */
  public ValidationResult checkSendable(WorkEvent event) {
    ProviderConfig provider = config.providers().get(event.provider());
    if (provider == null) {
      return new ValidationResult.Invalid(Reason.UNKNOWN_PROVIDER, "field 'provider' names "
          + Shown.quoted(event.provider()) + ", which is not a configured provider");
    }
    if (event.cost() > provider.smallestCostWindow()) {
      // Sending it would cost a provider attempt and could never succeed: no window holds it.
      return new ValidationResult.Invalid(Reason.INVALID, "field 'cost' is " + event.cost()
          + ", more than the cost limit " + provider.smallestCostWindow() + " per window of "
          + "provider " + Shown.quoted(event.provider()) + ": it could never be sent");
    }
    return new ValidationResult.Valid(event);
  }
}
