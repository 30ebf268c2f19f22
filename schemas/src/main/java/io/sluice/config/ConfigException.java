package io.sluice.config;

import java.util.List;

/**
 * The configuration cannot be used. Unchecked: there is nothing a caller can do but report it and
 * stop, and Sluice refuses to start on a configuration it does not fully understand.
 *
 * <p>The message lists every problem found, one per line, each starting with the dotted path of
 * the setting it is about ({@code providers.payments-api.rate: expected a rate like ...}), so a
 * user fixes them all in one pass rather than one per restart.
 */
public final class ConfigException extends RuntimeException {
  private final List<String> errors;

  public ConfigException(List<String> errors) {
    super(String.join("\n", errors));
    if (errors.isEmpty()) {
      throw new IllegalArgumentException("a ConfigException needs at least one error");
    }
    this.errors = List.copyOf(errors);
  }

  public ConfigException(String error) {
    this(List.of(error));
  }

  public ConfigException(String error, Throwable cause) {
    super(error, cause);
    this.errors = List.of(error);
  }

  /** Each problem, {@code path: what was expected}, in a stable order. */
  public List<String> errors() {
    return errors;
  }
}
